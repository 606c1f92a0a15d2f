// Puzzle 19: the gradient of the row-wise softmax, dx = y * (dy - sum(dy * y)), each row in one
// tile.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(SoftmaxBackward, int B0, int B1)

namespace tp::bindings {

struct softmax_backward
    : puzzle_binding<softmax_backward, puzzles::SoftmaxBackward, solutions::SoftmaxBackward> {
  using signature = void(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                         int N0, int T);
  using configs = block_list<blocks<1, 256>, blocks<4, 512>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::softmax_backward {

// y as the forward pass makes it: each row (the last axis) the softmax of logits spread like
// fill_signed(spread), so its elements are positive and sum to 1. A wide spread makes rows close
// to one-hot (most elements underflow to 0); spread 0 makes every element 1 / T.
case_fill softmax_rows(double spread) {
  return [spread](std::vector<float>& values, const std::vector<long long>& shape, rng& random) {
    fill_signed(values, random, spread);
    const long long cols = shape.empty() ? 1 : shape.back();
    for (long long first = 0; first < static_cast<long long>(values.size()); first += cols) {
      const auto row = values.begin() + first;
      const double top = *std::max_element(row, row + cols);
      double sum = 0;
      for (long long c = 0; c < cols; ++c) sum += std::exp(row[c] - top);
      for (long long c = 0; c < cols; ++c)
        row[c] = static_cast<float>(std::exp(row[c] - top) / sum);
    }
  };
}

// dx = y * (dy - rowsum(dy * y)), in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const matrix y = as_matrix(t[0], n[0], n[1]);
  const matrix dy = as_matrix(t[1], n[0], n[1]);
  const Eigen::ArrayXd weighted = (y.array() * dy.array()).rowwise().sum();
  set_from(t[2], matrix(y.array() * (dy.array().colwise() - weighted)));
}

void describe(puzzle_spec& s) {
  s.summary = "dx = y * (dy - sum(dy * y)) along each row of y[N0, T] (a softmax's output) and "
              "dy, T <= B1; B0 rows per program, each row in one tile";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1}, "A single element (y = 1): every lane but one of the row's tile is masked off."},
      // Catches the sum taken over the whole tile (every row of it) instead of each row.
      {{5, 67}, "Rows of 67 = 2^6 + 3 of 256 or 512 lanes; 5 rows, two programs of B0 = 4."},
      // Catches the diagonal of the Jacobian alone, y * (1 - y) * dy, and dy's terms weighted
      // wrongly: rows nearly one-hot, whose dx is nearly 0.
      {{7, 131},
       "Every row of y is nearly one-hot: the softmax of logits spread about 100, most of its "
       "elements 0 and one close to 1.",
       {{"y", softmax_rows(100.0)}}},
      // Catches the sum of dy taken without y's weights, sum(dy) or its mean: with dy about 30,
      // sum(dy * y) is about 30 and sum(dy) about 30 * T.
      {{5, 67},
       "Every row of dy lies far from zero (about +30, a spread of about 1): dx does not change "
       "when a constant is added to a row of dy.",
       {{"dy", values_around(30.0, 1.0)}}},
      {{4, 131}, "Every row of y is uniform, 1 / T.", {{"y", softmax_rows(0.0)}}},
      // Catches lanes past the row's end let into the sum (y loaded with -inf there: 0 * -inf).
      {{3, 2}, "Rows of 2 elements."},
      {{5, 3}, "Rows of 3 elements; N0 = 5 for B0 = 4."},
      {{6, 129}, "Rows one past 128."},
      // Catches a row mask left out.
      {{13, 66}, "Rows of 66; 13 rows, so the last program of B0 = 4 has one real row."},
      {{4, 200}, "The shape of the classic puzzle set's softmax, 4 x 200."},
      {{3, 257}, "Rows of 257, longer than 256: they fit only B1 = 512."},
      {{3, 509}, "Rows of 509, a prime just under 512."},
      {{2, 512}, "Rows that fill B1 = 512 exactly."},
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 509},
                 "The large tier: 4099 = 2^12 + 3 rows of 509, a ragged last block of rows for "
                 "B0 = 4."),
  };
  // y is a softmax's output in every case: the rows above that say how, the rest have logits
  // spread about 3 (a few large elements, many small ones).
  for (auto& c : s.cases)
    if (!c.fill_for("y")) c.fills.emplace_back("y", softmax_rows(3.0));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[1] <= b[1]; };
  s.case_fits_rule = "T <= B1 (a whole row in one tile)";
  auto shape = sizes_at({0, 1});
  s.tensors = {{"y", false, shape, nullptr},
               {"dy", false, shape, signed_fill(1.0)},
               {"dx", true, shape, nullptr}};
  s.size_bounds = {{2147483647, 1}, {4194303, 512}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= B1";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // dx = y * (dy - s) where dy and s are about 30 (case 4) is a difference of two floats near 30,
  // each a few units of 2^-19 (about 2e-6) off: an absolute 1e-5 allows that, and no more.
  s.rtol = 1e-4;
  s.atol = 1e-5;
  s.budgets = {each_element_read_at_most({"y", "dy"}, 1), each_element_written_at_most({"dx"}, 1)};
}

}  // namespace tp::specs::softmax_backward
#endif  // TILEPUZZLES_SPEC
