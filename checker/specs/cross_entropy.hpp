// Puzzle 20: the cross-entropy loss of each row of logits[N0, V] against its target class, over a
// long vocabulary, in one read of the logits.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(CrossEntropy, int B0, int B1)

namespace tp::bindings {

struct cross_entropy
    : puzzle_binding<cross_entropy, puzzles::CrossEntropy, solutions::CrossEntropy> {
  using signature = void(tl::ptr<const float> logits, tl::ptr<const int> target,
                         tl::ptr<float> loss, int N0, int V);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::cross_entropy {

constexpr int ignore_index = -100;

// The targets of rows of V classes: with two rows or more, the first row ignored and the last
// row's target the last class, V - 1 (a gather at the very end of the tensor); of the other rows
// about one in eight ignored, the rest uniform over the V classes.
void fill_targets(std::vector<std::int32_t>& targets, const std::vector<int>& sizes, rng& random) {
  const int V = sizes[1];
  const std::size_t rows = targets.size();
  for (std::size_t r = 0; r < rows; ++r)
    targets[r] = random.uniform() < 0.125 ? ignore_index : static_cast<int>(random.below(V));
  if (rows >= 2) {
    targets[0] = ignore_index;
    targets[rows - 1] = V - 1;
  }
}

// Logits spread like fill_signed(spread), about half of them replaced by -1e30: words masked out
// as a model masks them, with a finite stand-in for -inf.
case_fill masked_words(double spread) {
  return [spread](std::vector<float>& values, const std::vector<long long>&, rng& random) {
    fill_signed(values, random, spread);
    for (float& v : values)
      if (random.uniform() < 0.5) v = -1e30f;
  };
}

// loss[r] = logsumexp(logits[r, :]) - logits[r, target[r]], 0 for an ignored row; in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const matrix logits = as_matrix(t[0], n[0], n[1]);
  Eigen::ArrayXd loss(n[0]);
  for (int r = 0; r < n[0]; ++r) {
    const int target = t[1].ints[r];
    if (target == ignore_index) {
      loss[r] = 0.0;
      continue;
    }
    const double top = logits.row(r).maxCoeff();
    const double lse = top + std::log((logits.row(r).array() - top).exp().sum());
    loss[r] = lse - logits(r, target);
  }
  set_from(t[2], loss);
}

void describe(puzzle_spec& s) {
  s.summary = "loss = logsumexp(logits) - logits[target] for each row of logits[N0, V], 0 where "
              "target is -100; B0 rows per program, B1 columns per step, one read of the logits";
  s.size_names = {"N0", "V"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the maximum or the sum, and a gather not masked by the row.
      {{1, 1}, "A single row of one logit: its loss is 0 unless the row is ignored."},
      // Catches a running sum that is not rescaled when the maximum grows.
      {{5, 131},
       "The last logit of every row is +500, far above the rest: the row's maximum arrives in "
       "its last block.",
       {{"logits", peak_at_row_end(500.0, 30.0)}}},
      // Catches exp of a logit not shifted by the row's maximum (inf), and a logsumexp shifted by
      // the target's logit instead.
      {{5, 67},
       "Every row of logits lies far above zero (about +1000); V = 67 = 2^6 + 3 leaves a ragged "
       "block for every B1.",
       {{"logits", values_around(1000.0, 30.0)}}},
      // Catches a padding or an initial maximum that is not -inf (-1e4, 0): here it exceeds every
      // logit of the row, and every exp of a real logit shifted by it underflows.
      {{7, 131},
       "Every row of logits lies far below zero (about -3e4).",
       {{"logits", values_around(-3e4, 30.0)}}},
      // Catches the loss as -log(p) of the target's probability p: exp(-1e30 - max) is 0, and
      // -log(0) is inf where the reference is about 1e30.
      {{5, 67},
       "About half of the logits are -1e30 (words masked out with a finite stand-in for -inf), "
       "the target's among them in some rows.",
       {{"logits", masked_words(30.0)}}},
      // Catches the loss formed as (max + log(sum)) - target logit: rounded near 3e4 first, the
      // logsumexp is off by up to 0.001 in a loss of about 5.
      {{7, 131},
       "Every row of logits lies about 3e4 above zero with a spread of about 1: the loss, about "
       "5, is the difference of two numbers near 3e4.",
       {{"logits", values_around(3e4, 1.0)}}},
  };
  for (test_case& c : row_block_cases("The large tier: rows of 131075 = 2^17 + 3, the size of a "
                                      "large model's vocabulary, past every loop bound or array a "
                                      "kernel might hard-code below it (8192, 16384, 65536)."))
    s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  tensor_spec target{"target", false, sizes_at({0}), nullptr, dtype::int32};
  target.fill_ints_for_sizes = fill_targets;
  s.tensors = {{"logits", false, sizes_at({0, 1}), signed_fill(30.0)},
               target,
               {"loss", true, sizes_at({0}), nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * V < 2^31, V <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  s.rtol = 1e-5;
  s.atol = 1e-5;
  s.budgets = {each_element_read_at_most({"logits"}, 2),
               loads_in_all_at_most(
                   "logits", "N0 * V + N0",
                   [](const std::vector<int>& n) { return 1LL * n[0] * n[1] + n[0]; },
                   "one pass over each row, and one load of each row's target logit"),
               each_element_read_at_most({"target"}, 1),
               each_element_written_at_most({"loss"}, 1)};
}

}  // namespace tp::specs::cross_entropy
#endif  // TILEPUZZLES_SPEC
