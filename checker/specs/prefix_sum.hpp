// Puzzle 25: the running sums of each row of x[N0, T], over rows longer than a tile: a scan
// within each block (tl::cumsum) and a carry from block to block.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(PrefixSum, int B0, int B1)

namespace tp::bindings {

struct prefix_sum : puzzle_binding<prefix_sum, puzzles::PrefixSum, solutions::PrefixSum> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::prefix_sum {

// z[r, c] = x[r, 0] + ... + x[r, c], in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  matrix z = as_matrix(t[0], n[0], n[1]);
  for (int c = 1; c < n[1]; ++c) z.col(c) += z.col(c - 1);
  set_from(t[1], z);
}

void describe(puzzle_spec& s) {
  s.summary = "z[r, c] = x[r, 0] + ... + x[r, c] along each row of x[N0, T]; B0 rows per program, "
              "B1 columns per step, one read of x";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the scan (loaded as poison with no `other`).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      // Catches an exclusive scan (x[r, c] itself left out) and a scan from the row's end: small
      // integers, so every sum is exact.
      {{3, 33}, "Small integers from -4 to 4: every running sum is exact in float.",
       {{"x", integers_between(0, 4, 0)}}},
      // Catches a carry that is one sum for the program rather than one per row, and a carry
      // that is not added: every row far from zero, each with its own sign.
      {{5, 67},
       "Every row lies far from zero (magnitudes 1000 to 3000), half of the rows negative: each "
       "row's carry is its own, and T = 67 = 2^6 + 3 leaves a ragged block for every B1.",
       {{"x", magnitudes_with_row_sign(1000.0, 3000.0)}}},
      // Catches a carry built from the last lane of the block's scan where that lane is padding
      // loaded as something other than 0.
      {{7, 131}, "Every element is +1: z[r, c] = c + 1 exactly.", {{"x", integers_between(1, 1, 1)}}},
  };
  for (test_case& c : row_block_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"z", true, sizes_at({0, 1}), nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // A float running sum over 131075 terms drifts from the double one by about 1e-4 of the
  // largest partial sum; a sum that leaves out a term or a carry is off by about 1.
  s.rtol = 1e-4;
  s.atol = 1e-2;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::prefix_sum
#endif  // TILEPUZZLES_SPEC
