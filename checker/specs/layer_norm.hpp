// Puzzle 18: the layer norm of each row of x[N0, D], with weight w[D] and bias b[D]; the mean and
// the variance of each row in one pass, stored with y.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(LayerNorm, int B0, int B1)

namespace tp::bindings {

struct layer_norm : puzzle_binding<layer_norm, puzzles::LayerNorm, solutions::LayerNorm> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<const float> b,
                         tl::ptr<float> y, tl::ptr<float> mean, tl::ptr<float> rstd, int N0,
                         int D);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::layer_norm {

// In double: mean and the biased variance (divided by D) of each row, rstd = 1 / sqrt(var + eps)
// with the kernel's float eps, y = (x - mean) * rstd * w + b.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  constexpr double eps = 1e-5f;
  const matrix x = as_matrix(t[0], n[0], n[1]);
  const Eigen::ArrayXd w = as_array(t[1]), b = as_array(t[2]);
  const Eigen::ArrayXd mean = x.rowwise().mean();
  const Eigen::ArrayXXd centered = x.array().colwise() - mean;
  const Eigen::ArrayXd rstd = (centered.square().rowwise().mean() + eps).rsqrt();
  set_from(t[3], matrix(((centered.colwise() * rstd).rowwise() * w.transpose()).rowwise() +
                        b.transpose()));
  set_from(t[4], mean);
  set_from(t[5], rstd);
}

void describe(puzzle_spec& s) {
  s.summary = "y = (x - mean) * rstd * w + b along each row of x[N0, D], rstd = 1 / sqrt(var + "
              "eps), eps = 1e-5, with mean and rstd stored per row; B0 rows per program, B1 "
              "columns per step";
  s.size_names = {"N0", "D"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the sums, and a variance divided by D - 1 (0 / 0 here).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      // Catches the variance as the mean of the squares minus the square of the mean: at about
      // 100 with a spread about 1, the two differ in their sixth digit and float keeps seven.
      {{5, 67},
       "Every row of x lies far from zero (about +100) with a spread of about 1: the mean of "
       "the squares is about 10^4 times the variance; D = 67 = 2^6 + 3 leaves a ragged block "
       "for every B1.",
       {{"x", values_around(100.0, 1.0)}}},
      {{7, 131},
       "Every row of x lies far below zero (about -100) with a spread of about 1.",
       {{"x", values_around(-100.0, 1.0)}}},
      // Catches eps added outside the square root or to the sum of squares: here it decides the
      // scale.
      {{5, 67},
       "Every row of x has a small spread (about 1e-3): its variance, about 1e-6, is below "
       "eps = 1e-5.",
       {{"x", values_around(0.0, 1e-3)}}},
      // Catches eps left out: (x - mean) * rsqrt(0) is 0 * inf.
      {{3, 33}, "Every element of x is 0.", {{"x", integers_between(0, 0, 1)}}},
  };
  for (test_case& c : row_block_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"w", false, sizes_at({1}), signed_fill(1.0)},
               {"b", false, sizes_at({1}), signed_fill(1.0)},
               {"y", true, sizes_at({0, 1}), nullptr},
               {"mean", true, sizes_at({0}), nullptr},
               {"rstd", true, sizes_at({0}), nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * D < 2^31, D <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // y is (x - mean) * rstd: a float mean is off by a few units of its last place, which rows
  // 100 spreads away from zero magnify 100 times. An absolute 1e-4 allows that, and no more.
  s.rtol = 1e-4;
  s.atol = 1e-4;
  s.budgets = {each_element_read_at_most({"x"}, 2),
               each_element_written_at_most({"y", "mean", "rstd"}, 1),
               each_program_reads_each_element_at_most({"w", "b"}, 1)};
}

}  // namespace tp::specs::layer_norm
#endif  // TILEPUZZLES_SPEC
