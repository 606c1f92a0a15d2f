// Puzzle 6: a fused outer product and relu over a 2-D grid of programs.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(OuterMulRelu, int B0, int B1)

namespace tp::bindings {

struct outer_mul_relu
    : puzzle_binding<outer_mul_relu, puzzles::OuterMulRelu, solutions::OuterMulRelu> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::outer_mul_relu {

void describe(puzzle_spec& s) {
  s.summary = "z[j, i] = relu(x[i] * y[j]) for x[N0], y[N1], z[N1, N0]; a [B1, B0] tile per "
              "program on a 2-D grid";
  s.size_names = {"N0", "N1"};
  s.block_names = {"B0", "B1"};
  // The negative case catches relu applied to x and y instead of to their product.
  s.cases = outer_block_cases_with_negative_inputs(
      "x and y all negative, so every product is positive and z is the product itself.");
  // Catches a relu that clamps at a finite floor or a product rounded through a half type
  // (float16 overflows past 65504).
  s.cases.push_back(
      {{37, 18},
       "x and y far from zero (magnitudes 2e4 to 3e4, either sign): products of about 4e8 to "
       "9e8, half of them cut by relu.",
       {{"x", magnitudes_between(2e4, 3e4, 0)}, {"y", magnitudes_between(2e4, 3e4, 0)}}});
  for (auto& c : outer_block_large_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  // Both signs in x and in y: about half the products are negative, and a negative times a
  // negative is positive, so relu on the inputs instead of the product fails.
  s.tensors = outer_tensors(1.0);
  s.size_bounds = {{2147483647, 1}, {2047, 1048560}, {46340, 46340}};
  s.size_bounds_rule = "N0 * N1 < 2^31, N1 <= 65535 * 16 (the GPU grid's axis 1)";
  s.grid = outer_block_grid;
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    const Eigen::ArrayXd x = as_array(t[0]), y = as_array(t[1]);
    const matrix product = y.matrix() * x.matrix().transpose();
    set_from(t[2], matrix(product.cwiseMax(0.0)));
  };
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_program_reads_each_element_at_most({"x", "y"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::outer_mul_relu
#endif  // TILEPUZZLES_SPEC
