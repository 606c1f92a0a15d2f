// Puzzle 11: the row-wise softmax with each row in one tile: one read, one write.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(SoftmaxFused, int B0, int B1)

namespace tp::bindings {

struct softmax_fused
    : puzzle_binding<softmax_fused, puzzles::SoftmaxFused, solutions::SoftmaxFused> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 256>, blocks<4, 512>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::softmax_fused {

void describe(puzzle_spec& s) {
  s.summary = "z = softmax(x) along each row of x[N0, T], T <= B1; B0 rows per program, each "
              "row in one tile";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1}, "A single element: every lane but one of the row's tile is masked off."},
      // Catches masked lanes loaded as 0 into the maximum and no maximum at all.
      {{5, 67},
       "Every row of x lies far below zero (about -1000), so exp(x) underflows to 0 for every "
       "element unless the row's maximum is subtracted first; 67 = 2^6 + 3 of 256 or 512 lanes "
       "are real.",
       {{"x", values_around(-1000.0, 30.0)}}},
      {{7, 131},
       "Every row of x lies far above zero (about +1000), so exp(x) overflows to infinity for "
       "every element unless the row's maximum is subtracted first.",
       {{"x", values_around(1000.0, 30.0)}}},
      // Catches masked lanes loaded as -1e4 (67 of 256 or 512 lanes are real), which then win
      // the maximum: every real element's exp underflows to 0. The padding must be the identity
      // of max, -inf.
      {{5, 67},
       "Every row of x lies far below every padding a kernel might pick instead of -inf (about "
       "-3e4, below -1e4).",
       {{"x", values_around(-3e4, 30.0)}}},
      // Catches a softmax that does not subtract the row's maximum first.
      {{7, 131},
       "Every row of x lies far above zero (about +3e4): exp(x) overflows unless the row's "
       "maximum is subtracted first, at any magnitude.",
       {{"x", values_around(3e4, 30.0)}}},
      // Catches lanes past the row's end let into the maximum or the sum (loaded as 0, each adds
      // exp(0 - max)).
      {{3, 2}, "Rows of 2 elements, often all negative."},
      {{5, 3}, "Rows of 3 elements; N0 = 5 for B0 = 4."},
      {{6, 129}, "Rows one past 128."},
      // Catches a row mask left out.
      {{13, 66}, "Rows of 66; 13 rows, so the last program of B0 = 4 has one real row."},
      {{4, 200}, "The classic puzzle set's 4 x 200."},
      {{3, 257}, "Rows of 257, longer than 256: they fit only B1 = 512."},
      {{3, 509}, "Rows of 509, a prime just under 512."},
      {{2, 512}, "Rows that fill B1 = 512 exactly."},
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 509},
                 "The large tier: 4099 = 2^12 + 3 rows of 509, past the benchmarks' 4096 rows, "
                 "a ragged last block of rows for B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[1] <= b[1]; };
  s.case_fits_rule = "T <= B1 (a whole row in one tile)";
  auto shape = sizes_at({0, 1});
  // Large magnitudes: a softmax that does not subtract the row maximum overflows exp. Short
  // rows are often all negative, so lanes past the end loaded as 0 would win the maximum.
  s.tensors = {{"x", false, shape, signed_fill(30.0)},
               {"z", true, shape, nullptr}};
  s.size_bounds = {{2147483647, 1}, {4194303, 512}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= B1";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = softmax_reference;
  s.rtol = 1e-4;
  s.atol = 1e-7;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::softmax_fused
#endif  // TILEPUZZLES_SPEC
