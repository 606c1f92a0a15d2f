// Puzzle 8: the sum of each row of a long x[N0, T], in one loop over the row.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(LongSum, int B0, int B1)

namespace tp::bindings {

struct long_sum : puzzle_binding<long_sum, puzzles::LongSum, solutions::LongSum> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::long_sum {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = sum_j x[i, j] for x[N0, T]; B0 rows per program, a loop over T in steps "
              "of B1";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the sum (with no `other`, or an `other` other than 0).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      {{3, 65}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 34}, "A tail of 2 past a multiple of 32; N0 = 5 for B0 = 4."},
      {{7, 131}, "A tail of 3 past a multiple of 32 and of 64 (131 = 2^7 + 3, a prime)."},
      {{4, 200}, "The classic puzzle set's 4 x 200."},
      // Catches masked lanes loaded as anything but 0 and a sum kept in a half type (float16
      // overflows past 65504).
      {{5, 67},
       "Every row of x lies far below zero (about -3e4), no two terms cancelling: row sums of "
       "about -2e6 (T = 67 leaves a ragged block for every B1).",
       {{"x", values_around(-3e4, 30.0)}}},
      // Catches a loop that stops after one block and a running sum reset inside the loop.
      {{2, 1000}, "Long rows of 1000, 16 to 32 blocks each."},
      {{3, 4099},
       "Rows of 4099 = 2^12 + 3, a prime: past loop bounds a kernel might hard-code (1024, "
       "4096), with a ragged last block for every B1 and N0 = 3 for B0 = 4."},
      // Catches a loop bound or an array hard-coded up to 65536.
      large_case({2, 131075},
                 "The large tier: rows of 131075 = 2^17 + 3, past the longest rows the "
                 "benchmarks run (131072) and every loop bound or array a kernel might "
                 "hard-code below them (8192, 16384, 65536); x small integers, so that every "
                 "sum is exact in float32 in any order.",
                 {{"x", integers_between(1, 8, 0)}}),
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 3},
                 "The large tier: 4099 = 2^12 + 3 rows, past the benchmarks' 4096, a ragged last "
                 "block of rows for B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {
      {"x", false, sizes_at({0, 1}), signed_fill()},
      {"z", true, sizes_at({0}), nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const matrix x = as_matrix(t[0], n[0], n[1]);
    set_from(t[1], Eigen::ArrayXd(x.rowwise().sum().array()));
  };
  // A float sum of T terms of size ~1 is off by up to ~T * 6e-8 * |term|: 1e-4 absolute
  // covers T = 1000 in any order of summation.
  s.rtol = 1e-5;
  s.atol = 1e-4;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::long_sum
#endif  // TILEPUZZLES_SPEC
