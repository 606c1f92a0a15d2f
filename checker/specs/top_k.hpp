// Puzzle 27: the K largest values of each row of x[N0, T] (K <= 8), largest first, over rows
// longer than a tile: tl::sort, and the merge of two sorted runs of a bitonic sort.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(TopK, int B0, int B1)

namespace tp::bindings {

struct top_k : puzzle_binding<top_k, puzzles::TopK, solutions::TopK> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> top, int N0, int T, int K);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <functional>

#include "checker/specs/common.hpp"

namespace tp::specs::top_k {

// top[r, :] = the K largest of x[r, :], largest first.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long T = n[1], K = n[2];
  for (long long r = 0; r < n[0]; ++r) {
    std::vector<float> row(t[0].values.begin() + r * T, t[0].values.begin() + (r + 1) * T);
    std::partial_sort(row.begin(), row.begin() + K, row.end(), std::greater<float>());
    std::copy(row.begin(), row.begin() + K, t[1].values.begin() + r * K);
  }
}

// Values spread like fill_signed(spread), rising along each row: every block beats the last,
// and the K largest all sit in the row's last block.
case_fill rising_rows(double spread) {
  return [spread](std::vector<float>& values, const std::vector<long long>& shape, rng& random) {
    fill_signed(values, random, spread);
    const long long cols = shape.back();
    for (long long i = 0; i < static_cast<long long>(values.size()); ++i)
      values[i] += static_cast<float>(i % cols);
  };
}

void describe(puzzle_spec& s) {
  s.summary = "top[r, :] = the K largest values of row r of x[N0, T], largest first (K <= 8); B0 "
              "rows per program, B1 columns per step, one read of x";
  s.size_names = {"N0", "T", "K"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the sort (poison), and K misread as a block size.
      {{1, 1, 1}, "A single element, K = 1."},
      // Catches padding loaded as 0 (or any finite value): every real value is below it.
      {{3, 67, 8}, "Every row lies far below zero (about -3e4).", {{"x", values_around(-3e4, 30.0)}}},
      // Catches a kernel that keeps only the last block's largest values, or merges two runs
      // sorted the same way (their lane-by-lane maximum is not the larger half of both).
      {{5, 200, 8},
       "The rows fall: the K largest all sit in the row's first block.",
       {{"x", rising_rows(-1.0)}}},
      // Catches results stored smallest first, and a K fixed at 8.
      {{4, 131, 3}, "K = 3: three values a row, largest first."},
      // Catches ties dropped or merged: small integers, each maximum many times over.
      {{6, 133, 8}, "Small integers 0 to 3: the largest values repeat across blocks.",
       {{"x", integers_between(0, 3, 1)}}},
      {{3, 65, 5}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{13, 200, 8}, "13 rows: the last program of B0 = 4 has one real row."},
      {{2, 1000, 7}, "Long rows of 1000, 16 to 32 blocks each.", {{"x", rising_rows(1.0)}}},
      {{3, 4099, 8}, "Rows of 4099 = 2^12 + 3: past loop bounds a kernel might hard-code."},
      large_case({2, 131075, 8},
                 "The large tier: rows of 131075 = 2^17 + 3, past every loop bound or array a "
                 "kernel might hard-code below them (8192, 16384, 65536)."),
      large_case({4099, 9, 2},
                 "The large tier: 4099 = 2^12 + 3 rows, a ragged last block of rows for B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"top", true, sizes_at({0, 2}), nullptr}};
  s.size_bounds = {{16777215, 128, 8}, {2047, 131072, 8}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= 2^17, K <= 8 and K <= T";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // The values are copied, not computed: exact.
  s.rtol = 0;
  s.atol = 0;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"top"}, 1)};
}

}  // namespace tp::specs::top_k
#endif  // TILEPUZZLES_SPEC
