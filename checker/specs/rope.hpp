// Puzzle 21: the rotary position embedding of each row of x[N0, D], half-split (GPT-NeoX, LLaMA),
// with the cos and sin tables of each row's position given as inputs.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Rope, int B0, int B1)

namespace tp::bindings {

struct rope : puzzle_binding<rope, puzzles::Rope, solutions::Rope> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> cos,
                         tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::rope {

// The tables' shape: [N0, D / 2], beside x and y's [N0, D].
std::vector<long long> half_width(const std::vector<int>& n) { return {n[0], n[1] / 2}; }

// The table a model caches for rows that are consecutive positions 0, 1, ...: entry [r, i] is the
// cos (or sin) of r * 10000^(-i / H), H the table's width, as in LLaMA's rotary embedding.
void fill_table(std::vector<float>& values, const std::vector<long long>& shape, bool sine) {
  const long long rows = shape[0], width = shape[1];
  for (long long r = 0; r < rows; ++r)
    for (long long i = 0; i < width; ++i) {
      const double angle =
          static_cast<double>(r) * std::pow(10000.0, -static_cast<double>(i) / width);
      values[r * width + i] = static_cast<float>(sine ? std::sin(angle) : std::cos(angle));
    }
}

// y[:, :H] = x1 * cos - x2 * sin, y[:, H:] = x2 * cos + x1 * sin, x1 and x2 the halves of x; in
// double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long H = n[1] / 2;
  const matrix x = as_matrix(t[0], n[0], n[1]);
  const Eigen::ArrayXXd c = as_matrix(t[1], n[0], H).array();
  const Eigen::ArrayXXd s = as_matrix(t[2], n[0], H).array();
  const Eigen::ArrayXXd x1 = x.leftCols(H).array(), x2 = x.rightCols(H).array();
  matrix y(n[0], n[1]);
  y.leftCols(H) = (x1 * c - x2 * s).matrix();
  y.rightCols(H) = (x2 * c + x1 * s).matrix();
  set_from(t[3], y);
}

void describe(puzzle_spec& s) {
  s.summary = "y = x rotated pair by pair, pair i = (x[r, i], x[r, i + D/2]) by the angle whose "
              "cos and sin are cos[r, i] and sin[r, i], along each row of x[N0, D]; B0 rows per "
              "program, B1 pairs per step";
  s.size_names = {"N0", "D"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches the pairs taken outside the row's first half (past column H) and the tables
      // indexed with x's row length.
      {{1, 2}, "A single row of one pair, at position 0 (cos 1, sin 0)."},
      // Catches the interleaved convention, pairs (x[2i], x[2i + 1]), and a rotation by the
      // wrong sign: rows past position 0 turn.
      {{5, 134},
       "5 positions of 134 = 2 * 67 features: 67 pairs, a ragged last block for every B1."},
      // Catch a ragged last block of pairs let through its mask.
      {{3, 130}, "65 pairs a row: a tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 68}, "34 pairs a row: a tail of 2 past a multiple of 32."},
      {{6, 262}, "131 pairs a row: a tail of 3 past a multiple of 32 and of 64."},
      // Catches a row mask left out, and the tables indexed by the column alone (the position
      // ignored).
      {{13, 200}, "13 positions: the last program of B0 = 4 has one real row."},
      // Catches a loop over D instead of its half (the second half's pairs run off the row).
      {{2, 2000}, "Long rows of 1000 pairs, 16 to 32 blocks each."},
      // Catches a loop bound or an array hard-coded up to 65536.
      large_case({2, 262150},
                 "The large tier: rows of 131075 = 2^17 + 3 pairs, past every loop bound or "
                 "array a kernel might hard-code below them (8192, 16384, 65536)."),
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 10},
                 "The large tier: 4099 = 2^12 + 3 positions, a ragged last block of rows for "
                 "B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"cos", false, half_width, nullptr},
               {"sin", false, half_width, nullptr},
               {"y", true, sizes_at({0, 1}), nullptr}};
  // The tables depend on their shape, which a fill_fn does not see: every case fills them.
  for (test_case& c : s.cases) {
    c.fills.emplace_back("cos", [](std::vector<float>& v, const std::vector<long long>& shape,
                                   rng&) { fill_table(v, shape, false); });
    c.fills.emplace_back("sin", [](std::vector<float>& v, const std::vector<long long>& shape,
                                   rng&) { fill_table(v, shape, true); });
  }
  s.size_bounds = {{1073741823, 2}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * D < 2^31, D even, D <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // Each output is a sum or a difference of two float products, a few units of 2^-24 of the
  // larger off: with x's outliers about 5, a few 1e-7 absolute where the two nearly cancel.
  s.rtol = 1e-5;
  s.atol = 1e-5;
  s.budgets = {each_element_read_at_most({"x", "cos", "sin"}, 1),
               each_element_written_at_most({"y"}, 1)};
}

}  // namespace tp::specs::rope
#endif  // TILEPUZZLES_SPEC
