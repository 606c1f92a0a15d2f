// Puzzle 24: the backward pass of the layer norm, dx of each row of x[N0, D] from dy, w and the
// saved mean and rstd, and dw and db as per-program partial sums [G, D].
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(LayerNormBackward, int B0, int B1)

namespace tp::bindings {

struct layer_norm_backward : puzzle_binding<layer_norm_backward, puzzles::LayerNormBackward,
                                            solutions::LayerNormBackward> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> dy, tl::ptr<const float> w,
                         tl::ptr<const float> mean, tl::ptr<const float> rstd, tl::ptr<float> dx,
                         tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                         int G);
  using configs = block_list<blocks<1, 256>, blocks<4, 512>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::layer_norm_backward {

// The statistics puzzle 18's forward pass saves: each row's mean and rstd = 1 / sqrt(var + eps),
// in double, rounded to float as a float kernel stores them.
void save_forward_statistics(const std::vector<int>& n, std::vector<tensor>& t) {
  constexpr double eps = 1e-5f;
  const matrix x = as_matrix(t[0], n[0], n[1]);
  const Eigen::ArrayXd mean = x.rowwise().mean();
  const Eigen::ArrayXd var = (x.array().colwise() - mean).square().rowwise().mean();
  set_from(t[3], mean);
  set_from(t[4], Eigen::ArrayXd((var + eps).rsqrt()));
}

// In double, from the saved (float) mean and rstd: xhat = (x - mean) * rstd, g = w * dy,
// dx = (g - (xhat * mean(xhat * g) + mean(g))) * rstd; the partials of program p sum dy * xhat
// and dy over its slab, rows p * R .. p * R + R - 1 with R = cdiv(N0, G).
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const int N0 = n[0], D = n[1], G = n[2];
  const matrix x = as_matrix(t[0], N0, D), dy = as_matrix(t[1], N0, D);
  const Eigen::ArrayXd w = as_array(t[2]), mean = as_array(t[3]), rstd = as_array(t[4]);
  const Eigen::ArrayXXd xhat = (x.array().colwise() - mean).colwise() * rstd;
  const Eigen::ArrayXXd g = dy.array().rowwise() * w.transpose();
  const Eigen::ArrayXd c1 = (xhat * g).rowwise().mean(), c2 = g.rowwise().mean();
  const Eigen::ArrayXXd dx = ((g - (xhat.colwise() * c1)).colwise() - c2).colwise() * rstd;
  set_from(t[5], matrix(dx));
  const int R = cdiv(N0, G);
  matrix dw = matrix::Zero(G, D), db = matrix::Zero(G, D);
  for (int r = 0; r < N0; ++r) {
    dw.row(r / R) += (dy.row(r).array() * xhat.row(r)).matrix();
    db.row(r / R) += dy.row(r);
  }
  set_from(t[6], dw);
  set_from(t[7], db);
}

void describe(puzzle_spec& s) {
  s.summary = "dx = (w * dy - (xhat * mean(xhat * w * dy) + mean(w * dy))) * rstd along each row "
              "of x[N0, D], xhat = (x - mean) * rstd from the saved mean and rstd, and over each "
              "program's slab of cdiv(N0, G) rows partial_dw[p] = sum(dy * xhat), partial_db[p] "
              "= sum(dy); G programs, B0 rows per step, D <= B1";
  s.size_names = {"N0", "D", "G"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1, 1}, "A single element: its xhat is 0 and its dx 0."},
      // Catches a slab bounded by N0 alone: with R = 3 rows a slab and B0 = 4, a program's last
      // step reaches into the next program's rows.
      {{5, 67, 2},
       "5 rows in 2 slabs of 3 and 2; D = 67 = 2^6 + 3 of 256 or 512 lanes."},
      // Catches rows per program rounded down (N0 / G): the last rows belong to no program.
      {{7, 131, 3}, "7 rows in 3 slabs of 3, 3 and 1."},
      // Catches a program with an empty slab that stores no partials.
      {{5, 67, 8}, "8 programs for 5 rows: programs 5 to 7 own no row, their partials are 0."},
      // Catches dx without c2 or without c1 (the gradient through mean or rstd left out).
      {{13, 66, 2},
       "13 rows in 2 slabs of 7 and 6; every row of dy lies far from zero (about +30, a spread "
       "of about 1).",
       {{"dy", values_around(30.0, 1.0)}}},
      // Catches xhat taken as x: rows far from zero, whose xhat is still about 1.
      {{6, 129, 4},
       "Every row of x lies far from zero (about +100) with a spread of about 1.",
       {{"x", values_around(100.0, 1.0)}}},
      {{4, 200, 1}, "4 rows of 200, all in one program's slab."},
      // Catch lanes past the row's end let into the sums.
      {{3, 2, 1}, "Rows of 2 elements."},
      {{5, 3, 2}, "Rows of 3 elements; N0 = 5 for B0 = 4."},
      {{3, 257, 3}, "Rows of 257, longer than 256: they fit only B1 = 512; one row a slab."},
      {{3, 509, 2}, "Rows of 509, a prime just under 512."},
      {{2, 512, 1}, "Rows that fill B1 = 512 exactly."},
      // Catches a grid or a row bound hard-coded up to 4096, and slabs hard-coded short.
      large_case({4099, 509, 64},
                 "The large tier: 4099 = 2^12 + 3 rows of 509 in 64 slabs of 65 rows (the last "
                 "of 4)."),
      large_case({4099, 5, 4099},
                 "The large tier: 4099 programs of one row each."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[1] <= b[1]; };
  s.case_fits_rule = "D <= B1 (a whole row in one tile)";
  const auto rows = sizes_at({0, 1});
  const auto partials = sizes_at({2, 1});
  s.tensors = {{"x", false, rows, signed_fill(1.0)},
               {"dy", false, rows, signed_fill(1.0)},
               {"w", false, sizes_at({1}), signed_fill(1.0)},
               {"mean", false, sizes_at({0}), nullptr},
               {"rstd", false, sizes_at({0}), nullptr},
               {"dx", true, rows, nullptr},
               {"partial_dw", true, partials, nullptr},
               {"partial_db", true, partials, nullptr}};
  s.derive_inputs = save_forward_statistics;
  // A program walks its slab of rows: 4096 rows a program at most keeps the simulator's runs at
  // the corners short.
  s.size_bounds = {{2147483647, 1, 524288}, {4194303, 512, 1024}, {4096, 512, 1},
                   {65535, 512, 65535}};
  s.size_bounds_rule = "N0 * D < 2^31, G * D < 2^31, D <= B1, cdiv(N0, G) <= 4096";
  s.grid = [](const std::vector<int>& n, const std::vector<int>&) {
    return std::array<int, 3>{n[2], 1, 1};
  };
  s.reference = reference;
  // dx is a difference of w * dy and a row's means, each a few units of 2^-24 of dy's 30 (case
  // 5) off; a partial sums up to 65 rows of products. An absolute 1e-4 allows that, and no more.
  s.rtol = 1e-4;
  s.atol = 1e-4;
  s.budgets = {each_element_read_at_most({"x", "dy", "mean", "rstd"}, 1),
               each_program_reads_each_element_at_most({"w"}, 1),
               each_element_written_at_most({"dx", "partial_dw", "partial_db"}, 1)};
}

}  // namespace tp::specs::layer_norm_backward
#endif  // TILEPUZZLES_SPEC
