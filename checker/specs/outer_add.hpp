// Puzzle 4: the outer sum of two vectors, one program, a 2-D tile from two 1-D ones.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(OuterAdd, int B0, int B1)

namespace tp::bindings {

struct outer_add : puzzle_binding<outer_add, puzzles::OuterAdd, solutions::OuterAdd> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1);
  // 128 x 64: the large tier's blocks (one program covers z, so a larger z needs larger blocks).
  using configs = block_list<blocks<32, 32>, blocks<64, 16>, blocks<128, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::outer_add {

void describe(puzzle_spec& s) {
  s.summary = "z[j, i] = x[i] + y[j] for x[N0], y[N1], z[N1, N0]; one program, B0 = N0, "
              "B1 = N1";
  s.size_names = {"N0", "N1"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches x and y swapped.
      {{32, 32}, "The classic puzzle set's 32 x 32."},
      // Catches x or y rounded through a half type or clamped on the way.
      {{32, 32},
       "x far above zero (about +3e4) and y far below (about -3e4): z = x + y is a small "
       "difference of two large numbers, exact in float32.",
       {{"x", values_around(3e4, 30.0)}, {"y", values_around(-3e4, 30.0)}}},
      // Catches x and y swapped, the axes transposed, or a row stride of N1.
      {{64, 16}, "A wide z[16, 64]."},
      // Catches a kernel that assumes at most 64 lanes on an axis, or a square z.
      large_case({128, 64},
                 "The large tier: z[64, 128] with B0 = 128 and B1 = 64, past the small cases' "
                 "blocks on both axes."),
  };
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) {
    return n[0] == b[0] && n[1] == b[1];
  };
  s.case_fits_rule = "N0 = B0 and N1 = B1 (one program covers all of z)";
  s.tensors = outer_tensors(10.0);
  s.size_bounds = {{32, 32}, {64, 16}, {128, 64}};
  s.size_bounds_rule = "N0 = B0 and N1 = B1";
  s.grid = [](const std::vector<int>&, const std::vector<int>&) {
    return std::array<int, 3>{1, 1, 1};
  };
  s.reference = outer_add_reference;
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x", "y"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::outer_add
#endif  // TILEPUZZLES_SPEC
