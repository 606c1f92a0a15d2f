// Puzzle 5: the outer sum of two vectors over a 2-D grid of programs, masked on two edges.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(OuterAddBlock, int B0, int B1)

namespace tp::bindings {

struct outer_add_block
    : puzzle_binding<outer_add_block, puzzles::OuterAddBlock, solutions::OuterAddBlock> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::outer_add_block {

void describe(puzzle_spec& s) {
  s.summary = "z[j, i] = x[i] + y[j] for x[N0], y[N1], z[N1, N0]; a [B1, B0] tile per program "
              "on a 2-D grid";
  s.size_names = {"N0", "N1"};
  s.block_names = {"B0", "B1"};
  s.cases = outer_block_cases();
  // Catches x or y rounded through a half type or clamped on the way.
  s.cases.push_back(
      {{37, 18},
       "x far above zero (about +3e4) and y far below (about -3e4): z = x + y is a small "
       "difference of two large numbers, exact in float32.",
       {{"x", values_around(3e4, 30.0)}, {"y", values_around(-3e4, 30.0)}}});
  for (auto& c : outer_block_large_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = outer_tensors(10.0);
  s.size_bounds = {{2147483647, 1}, {2047, 1048560}, {46340, 46340}};
  s.size_bounds_rule = "N0 * N1 < 2^31, N1 <= 65535 * 16 (the GPU grid's axis 1)";
  s.grid = outer_block_grid;
  s.reference = outer_add_reference;
  s.rtol = 1e-6;
  s.atol = 1e-6;
  // Each program needs its B0 elements of x and its B1 of y once; every program of a grid
  // column reads the same x tile, so the launch-wide count is not the budget.
  s.budgets = {each_program_reads_each_element_at_most({"x", "y"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::outer_add_block
#endif  // TILEPUZZLES_SPEC
