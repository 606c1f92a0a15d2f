// Puzzle 3: the sum of two vectors, B0 elements per program, the last block masked.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(VectorAdd, int B0)

namespace tp::bindings {

struct vector_add : puzzle_binding<vector_add, puzzles::VectorAdd, solutions::VectorAdd> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<256>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::vector_add {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = x[i] + y[i] over N0 elements, B0 per program";
  s.size_names = {"N0"};
  s.block_names = {"B0"};
  s.cases = {
      // Catches a missing mask on x, y or z.
      {{1}, "One element: every lane of the only program but one is masked off."},
      {{2}, "Two elements in one partial block."},
      {{3}, "Three elements in one partial block."},
      {{100}, "A partial last block for both block sizes."},
      {{257}, "One past 256: a last block of one lane for B0 = 256, of one for B0 = 32."},
      // Catches x or y rounded through a half type (at 3e4 float16's spacing is 16) or clamped on
      // the way.
      {{257},
       "x far above zero (about +3e4) and y far below (about -3e4): z is a small difference of "
       "two large numbers, exact in float32.",
       {{"x", values_around(3e4, 30.0)}, {"y", values_around(-3e4, 30.0)}}},
      // Catches offsets that ignore program_id.
      {{1000}, "The classic puzzle set's 1000: 32 or 4 programs."},
      {{4099},
       "4099 = 2^12 + 3, a prime: past every round size a kernel might assume (1024, 4096), "
       "with a ragged last block for every B0."},
      // Catches a loop bound, an array or a count of programs hard-coded up to 2^20.
      large_case({1048579},
                 "The large tier: 1048579 = 2^20 + 3 elements, 32769 or 4097 programs, a ragged "
                 "last block."),
  };
  s.blocked_sizes = {{0, 0}};
  auto n0 = sizes_at({0});
  s.tensors = {{"x", false, n0, signed_fill()},
               {"y", false, n0, signed_fill()},
               {"z", true, n0, nullptr}};
  s.size_bounds = {{2147483647}};
  s.size_bounds_rule = "N0 < 2^31";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    const auto x = as_array(t[0]), y = as_array(t[1]);
    set_from(t[2], Eigen::ArrayXd(x + y));
  };
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x", "y"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::vector_add
#endif  // TILEPUZZLES_SPEC
