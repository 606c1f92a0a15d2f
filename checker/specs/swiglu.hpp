// Puzzle 22: the fused SwiGLU gate, y = silu(a) * b, a and b the two halves of each row of
// x[N0, 2D].
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Swiglu, int B0, int B1)

namespace tp::bindings {

struct swiglu : puzzle_binding<swiglu, puzzles::Swiglu, solutions::Swiglu> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::swiglu {

// x's shape: [N0, 2D], the gate and the value of each row side by side.
std::vector<long long> gate_and_value(const std::vector<int>& n) { return {n[0], 2LL * n[1]}; }

// Values spread like fill_signed(spread) around `center` in the gate half of each row (its first
// D columns), and around 0 in the value half.
case_fill gates_around(double center, double spread) {
  return [center, spread](std::vector<float>& values, const std::vector<long long>& shape,
                          rng& random) {
    fill_signed(values, random, spread);
    const long long width = shape[1], D = width / 2;
    for (long long first = 0; first < static_cast<long long>(values.size()); first += width)
      for (long long c = 0; c < D; ++c) values[first + c] += static_cast<float>(center);
  };
}

// y = a / (1 + exp(-a)) * b, in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const matrix x = as_matrix(t[0], n[0], 2LL * n[1]);
  const Eigen::ArrayXXd a = x.leftCols(n[1]).array(), b = x.rightCols(n[1]).array();
  set_from(t[1], matrix(a / (1.0 + (-a).exp()) * b));
}

void describe(puzzle_spec& s) {
  s.summary = "y = silu(a) * b, silu(a) = a * sigmoid(a), a = x[:, :D] and b = x[:, D:] the two "
              "halves of each row of x[N0, 2D]; B0 rows per program, B1 columns per step";
  s.size_names = {"N0", "D"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches the halves read with the row length of y (D) instead of x's (2D).
      {{1, 1}, "A single row of one gate and its value."},
      // Catches the sigmoid as exp(a) / (1 + exp(a)): inf / inf past a = 88.
      {{5, 67},
       "Every gate lies far above zero (about +1000): silu(a) is a; D = 67 = 2^6 + 3 leaves a "
       "ragged block for every B1.",
       {{"x", gates_around(1000.0, 30.0)}}},
      // Catches the sigmoid as 1 - exp(-a) / (1 + exp(-a)): inf / inf below a = -88.
      {{7, 131},
       "Every gate lies far below zero (about -1000): silu(a) is -0.",
       {{"x", gates_around(-1000.0, 30.0)}}},
      // Catches silu applied to the value instead of the gate: here they differ in every element.
      {{4, 33},
       "Every gate lies about +3 and every value about 0, with a spread of about 1.",
       {{"x", gates_around(3.0, 1.0)}}},
  };
  for (test_case& c : row_block_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, gate_and_value, signed_fill(2.0)},
               {"y", true, sizes_at({0, 1}), nullptr}};
  s.size_bounds = {{1073741823, 1}, {2047, 524288}, {32767, 32767}};
  s.size_bounds_rule = "N0 * 2D < 2^31, D <= 2^19";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // silu(a) * b: an exp, a division and two products in float, each a few units of 2^-24.
  s.rtol = 1e-5;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"y"}, 1)};
}

}  // namespace tp::specs::swiglu
#endif  // TILEPUZZLES_SPEC
