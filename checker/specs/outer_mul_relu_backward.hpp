// Puzzle 7: the backward pass of z = relu(x * y) with respect to x, over a 2-D grid.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(OuterMulReluBackward, int B0, int B1)

namespace tp::bindings {

struct outer_mul_relu_backward
    : puzzle_binding<outer_mul_relu_backward, puzzles::OuterMulReluBackward, solutions::OuterMulReluBackward> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<const float> dz,
                         tl::ptr<float> dx, int N0, int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::outer_mul_relu_backward {

void describe(puzzle_spec& s) {
  s.summary = "dx[j, i] = (x[j, i] * y[j] > 0) * y[j] * dz[j, i] for x, dz, dx [N1, N0] and "
              "y[N1]; a [B1, B0] tile per program on a 2-D grid";
  s.size_names = {"N0", "N1"};
  s.block_names = {"B0", "B1"};
  // The negative case catches a gate on x > 0 or on y > 0 alone.
  s.cases = outer_block_cases_with_negative_inputs(
      "x and y all negative, so x * y > 0 and the gate is open everywhere.");
  // Catches a gate or a gradient computed through a half type (float16 overflows past 65504) or
  // clamped on the way.
  s.cases.push_back(
      {{37, 18},
       "x, y and dz far from zero (magnitudes 2e4 to 3e4, either sign): x * y and y * dz of "
       "about 4e8 to 9e8.",
       {{"x", magnitudes_between(2e4, 3e4, 0)},
        {"y", magnitudes_between(2e4, 3e4, 0)},
        {"dz", magnitudes_between(2e4, 3e4, 0)}}});
  for (auto& c : outer_block_large_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  auto matrix_shape = sizes_at({1, 0});
  // Both signs in x and y, so the relu's gate depends on both; exact zeros in x, where the
  // gate is closed (relu'(0) = 0, as in PyTorch).
  s.tensors = {{"x", false, matrix_shape, signed_fill()},
               {"y", false, sizes_at({1}), signed_fill()},
               {"dz", false, matrix_shape, signed_fill()},
               {"dx", true, matrix_shape, nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048560}, {46340, 46340}};
  s.size_bounds_rule = "N0 * N1 < 2^31, N1 <= 65535 * 16 (the GPU grid's axis 1)";
  s.grid = outer_block_grid;
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const matrix x = as_matrix(t[0], n[1], n[0]);
    const Eigen::ArrayXd y = as_array(t[1]);
    const matrix dz = as_matrix(t[2], n[1], n[0]);
    const Eigen::ArrayXXd scaled = x.array().colwise() * y;  // x[j, i] * y[j]
    const Eigen::ArrayXXd grad = dz.array().colwise() * y;   // y[j] * dz[j, i]
    set_from(t[3], matrix((scaled > 0.0).select(grad, 0.0)));
  };
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x", "dz"}, 1),
               each_program_reads_each_element_at_most({"y"}, 1),
               each_element_written_at_most({"dx"}, 1)};
}

}  // namespace tp::specs::outer_mul_relu_backward
#endif  // TILEPUZZLES_SPEC
