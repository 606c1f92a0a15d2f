// Puzzle 26: the column of the largest value of each row of x[N0, T] (the first one where values
// tie, a NaN winning), over rows longer than a tile, in one read of x.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Argmax, int B0, int B1)

namespace tp::bindings {

struct argmax : puzzle_binding<argmax, puzzles::Argmax, solutions::Argmax> {
  using signature = void(tl::ptr<const float> x, tl::ptr<int> index, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>
#include <limits>

#include "checker/specs/common.hpp"

namespace tp::specs::argmax {

// index[r] = the first c with x[r, c] NaN, else the first c with x[r, c] = max_c' x[r, c'].
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long T = n[1];
  for (long long r = 0; r < n[0]; ++r) {
    const float* row = t[0].values.data() + r * T;
    long long best = 0;
    for (long long c = 1; c < T && !std::isnan(row[best]); ++c)
      if (std::isnan(row[c]) || row[c] > row[best]) best = c;
    t[1].ints[r] = static_cast<std::int32_t>(best);
  }
}

// Every element -inf: the answer is column 0, which a running index that starts anywhere else,
// or a best value that only a strictly larger one replaces, never reaches.
case_fill all_minus_infinity() {
  return [](std::vector<float>& values, const std::vector<long long>&, rng&) {
    for (float& v : values) v = -std::numeric_limits<float>::infinity();
  };
}

// Values spread like fill_signed(1), with a NaN in every other row (rows 0, 2, ...) at a random
// column past the first block of 64, and in rows 0 mod 4 a second NaN further on.
case_fill nan_in_every_other_row() {
  return [](std::vector<float>& values, const std::vector<long long>& shape, rng& random) {
    fill_signed(values, random, 1.0);
    const long long cols = shape.back(), rows = static_cast<long long>(values.size()) / cols;
    for (long long r = 0; r < rows; r += 2) {
      const long long first = 64 + static_cast<long long>(random.below(static_cast<std::uint64_t>(cols - 64 - 1)));
      values[r * cols + first] = std::numeric_limits<float>::quiet_NaN();
      if (r % 4 == 0) values[r * cols + cols - 1] = std::numeric_limits<float>::quiet_NaN();
    }
  };
}

void describe(puzzle_spec& s) {
  s.summary = "index[r] = the first column of the largest value of row r of x[N0, T] (of its first "
              "NaN, if any); B0 rows per program, B1 columns per step, one read of x";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the maximum (loaded as poison with no `other`).
      {{1, 1}, "A single element: its index is 0."},
      // Catches ties broken toward the later column, within a block or across blocks (>= where
      // > belongs).
      {{3, 133},
       "Small integers 0 to 3: every row's maximum appears many times, in several blocks; the "
       "first is the answer.",
       {{"x", integers_between(0, 3, 1)}}},
      // Catches a running best that starts at 0, or padding loaded as 0 or -1e4: every value is
      // below them.
      {{7, 131}, "Every row lies far below zero (about -3e4).", {{"x", values_around(-3e4, 30.0)}}},
      // Catches a running index that starts at -1 or past the row, and a best that starts at
      // -inf and only moves on a strictly larger value.
      {{5, 67}, "Every element is -inf: every answer is column 0.", {{"x", all_minus_infinity()}}},
      // Catches a kernel whose maximum drops a NaN (a comparison with NaN is false) or keeps
      // the last NaN.
      {{6, 200},
       "Every other row holds a NaN past its first 64 columns (some two): its first NaN is the "
       "answer, as torch.argmax.",
       {{"x", nan_in_every_other_row()}}},
      // Catches a maximum that is not carried to the last block.
      {{5, 131}, "The last element of every row is +500, far above the rest.",
       {{"x", peak_at_row_end(500.0, 30.0)}}},
  };
  for (test_case& c : row_block_cases()) s.cases.push_back(std::move(c));
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill(1.0)},
               {"index", true, sizes_at({0}), nullptr, dtype::int32}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  s.rtol = 0;
  s.atol = 0;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"index"}, 1)};
}

}  // namespace tp::specs::argmax
#endif  // TILEPUZZLES_SPEC
