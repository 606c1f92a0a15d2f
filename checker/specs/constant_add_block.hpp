// Puzzle 2: add a constant to a vector longer than a block: a grid of programs and the first mask.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(ConstantAddBlock, int B0)

namespace tp::bindings {

struct constant_add_block
    : puzzle_binding<constant_add_block, puzzles::ConstantAddBlock, solutions::ConstantAddBlock> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::constant_add_block {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = x[i] + 10 over N0 elements, B0 per program";
  s.size_names = {"N0"};
  s.block_names = {"B0"};
  s.cases = {
      // Catches a missing mask.
      {{1}, "One element: every lane of the only program but one is masked off."},
      {{2}, "Two elements in one partial block."},
      {{3}, "Three elements in one partial block."},
      // Catches a mask or a grid that is off by one.
      {{33}, "A tail of 1 past a multiple of 32."},
      {{66}, "A tail of 2 past a multiple of 32 and of 64."},
      {{131}, "A tail of 3 past a multiple of 32 and of 64 (131 = 2^7 + 3, a prime)."},
      // Catches the constant added in a half type, where 10 is rounded away.
      {{131},
       "x far above zero (about +3e4, where float16's spacing is 16): z = x + 10 holds at any "
       "magnitude.",
       {{"x", values_around(3e4, 30.0)}}},
      // Catches offsets that ignore program_id.
      {{200}, "The classic puzzle set's x[200]: several programs."},
      {{4099},
       "4099 = 2^12 + 3, a prime: past every round size a kernel might assume (1024, 4096), "
       "with a ragged last block for every B0."},
      // Catches a loop bound, an array or a count of programs hard-coded up to 2^20.
      large_case({1048579},
                 "The large tier: 1048579 = 2^20 + 3 elements, 32769 or 16385 programs, a "
                 "ragged last block."),
  };
  s.blocked_sizes = {{0, 0}};
  auto n0 = sizes_at({0});
  s.tensors = {{"x", false, n0, signed_fill(10.0)},
               {"z", true, n0, nullptr}};
  s.size_bounds = {{2147483647}};
  s.size_bounds_rule = "N0 < 2^31";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    set_from(t[1], Eigen::ArrayXd(as_array(t[0]) + 10.0));
  };
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::constant_add_block
#endif  // TILEPUZZLES_SPEC
