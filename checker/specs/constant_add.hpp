// Puzzle 1: add a constant to a vector with one program that covers it exactly.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(ConstantAdd, int B0)

namespace tp::bindings {

struct constant_add : puzzle_binding<constant_add, puzzles::ConstantAdd, solutions::ConstantAdd> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0);
  // 1024: the large tier's block (one program covers the vector, so a larger vector needs a
  // larger block).
  using configs = block_list<blocks<32>, blocks<128>, blocks<1024>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::constant_add {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = x[i] + 10 over N0 elements, one program with B0 = N0 lanes";
  s.size_names = {"N0"};
  s.block_names = {"B0"};
  s.cases = {
      // Catches a wrong constant and lanes stored to the wrong offsets.
      {{32}, "The classic puzzle set's x[32], with B0 = 32."},
      // Catches a kernel that assumes 32 lanes (it leaves most of z unwritten).
      {{128}, "x[128] with B0 = 128."},
      // Catches the constant added in a half type, where 10 is rounded away.
      {{128},
       "x far below zero (about -3e4, where float16's spacing is 16): z = x + 10 holds at any "
       "magnitude.",
       {{"x", values_around(-3e4, 30.0)}}},
      // Catches a kernel that assumes at most 32 or 128 lanes.
      large_case({1024},
                 "The large tier: x[1024] with B0 = 1024, eight times the small cases' largest "
                 "block."),
  };
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[0] == b[0]; };
  s.case_fits_rule = "N0 = B0 (one program covers the whole vector)";
  auto n0 = sizes_at({0});
  // Values around -10 too, so that z crosses zero.
  s.tensors = {{"x", false, n0, signed_fill(10.0)},
               {"z", true, n0, nullptr}};
  s.size_bounds = {{32}, {128}, {1024}};
  s.size_bounds_rule = "N0 = B0: 32, 128 or 1024";
  s.grid = [](const std::vector<int>&, const std::vector<int>&) {
    return std::array<int, 3>{1, 1, 1};
  };
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    set_from(t[1], Eigen::ArrayXd(as_array(t[0]) + 10.0));
  };
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::constant_add
#endif  // TILEPUZZLES_SPEC
