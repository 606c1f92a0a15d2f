// Puzzle 17: the RMS norm of each row of x[N0, D], scaled by w[D], over rows longer than a tile.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(RmsNorm, int B0, int B1)

namespace tp::bindings {

struct rms_norm : puzzle_binding<rms_norm, puzzles::RmsNorm, solutions::RmsNorm> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y, int N0,
                         int D);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::rms_norm {

// y[r, c] = x[r, c] / sqrt(mean_c' x[r, c']^2 + eps) * w[c], in double; eps is the kernel's
// float 1e-5f.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  constexpr double eps = 1e-5f;
  const matrix x = as_matrix(t[0], n[0], n[1]);
  const Eigen::ArrayXd w = as_array(t[1]);
  const Eigen::ArrayXd rstd = (x.array().square().rowwise().mean() + eps).rsqrt();
  set_from(t[2], matrix((x.array().colwise() * rstd).rowwise() * w.transpose()));
}

void describe(puzzle_spec& s) {
  s.summary = "y = x / sqrt(mean(x^2) + eps) * w along each row of x[N0, D], eps = 1e-5; B0 rows "
              "per program, B1 columns per step";
  s.size_names = {"N0", "D"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the sum of squares (loaded as poison with no `other`).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      // Catches eps left out: 0 * rsqrt(0) is 0 * inf, NaN.
      {{3, 33}, "Every element of x is 0.", {{"x", integers_between(0, 0, 1)}}},
      // Catches eps added to the sum of squares instead of to their mean, and eps outside the
      // square root: here it decides the scale.
      {{5, 67},
       "Every row of x is small (about 1e-3): the mean of the squares, about 1e-6, is below "
       "eps = 1e-5; D = 67 = 2^6 + 3 leaves a ragged block for every B1.",
       {{"x", values_around(0.0, 1e-3)}}},
      // Catches a kernel that subtracts each row's mean (a layer norm) or divides by the
      // square of the mean instead of the mean of the squares.
      {{7, 131},
       "Every row of x lies far above zero (about +1000, its squares about 1e6).",
       {{"x", values_around(1000.0, 1.0)}}},
  };
  for (test_case& c : row_block_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"w", false, sizes_at({1}), signed_fill(1.0)},
               {"y", true, sizes_at({0, 1}), nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * D < 2^31, D <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  s.rtol = 1e-4;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x"}, 2), each_element_written_at_most({"y"}, 1),
               each_program_reads_each_element_at_most({"w"}, 1)};
}

}  // namespace tp::specs::rms_norm
#endif  // TILEPUZZLES_SPEC
