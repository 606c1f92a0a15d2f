// Puzzle 28: a histogram, bins[b] = how many of x[N0] equal b, for b in [0, NB); values outside
// [0, NB) count nowhere. bins is an int32 output that the host zeroes before the launch; the
// programs add their counts into it with tl::atomic_add.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Histogram, int B0, int B1)

namespace tp::bindings {

struct histogram : puzzle_binding<histogram, puzzles::Histogram, solutions::Histogram> {
  using signature = void(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB);
  using configs = block_list<blocks<256, 16>, blocks<16, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <limits>

#include "checker/specs/common.hpp"

namespace tp::specs::histogram {

// Values uniform over -2 .. NB + 1, so that about 4 in NB + 4 fall outside the bins (-2, -1, NB
// and NB + 1: just below the first bin and just past the last); the first value 0 and the last
// NB - 1 (the first and last bins are hit in every case of two values or more). Cases are told
// apart by their sizes: with NB = 8, every value is 7 (every lane of every program on one bin);
// from 1000 values on, x[1] and x[2] are INT_MIN and INT_MAX (a bin computed as value - lo or
// value * scale overflows there).
void fill_values(std::vector<std::int32_t>& x, const std::vector<int>& sizes, rng& random) {
  const int NB = sizes[1];
  if (NB == 8) {
    std::fill(x.begin(), x.end(), 7);
    return;
  }
  for (auto& v : x) v = static_cast<std::int32_t>(random.below(NB + 4)) - 2;
  x.back() = NB - 1;
  if (x.size() >= 2) x.front() = 0;
  if (x.size() >= 1000) {
    x[1] = std::numeric_limits<std::int32_t>::min();
    x[2] = std::numeric_limits<std::int32_t>::max();
  }
}

// bins[b] = #{i : x[i] == b}.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  auto& bins = t[1].ints;
  bins.assign(static_cast<std::size_t>(n[1]), 0);
  for (const std::int32_t v : t[0].ints)
    if (v >= 0 && v < n[1]) ++bins[static_cast<std::size_t>(v)];
}

void describe(puzzle_spec& s) {
  s.summary = "bins[b] = how many of the N0 values of x[N0] equal b, for the NB bins b in "
              "[0, NB); values outside count nowhere. bins starts as zeros; B0 values per "
              "program, B1 bins per step, the counts added with tl::atomic_add";
  s.size_names = {"N0", "NB"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1}, "A single value, 0, into a single bin."},
      // Catches a bin taken from a value without checking it (an out-of-bounds atomic), and
      // masked-off lanes loaded as 0 (other = 0), which count into bin 0: N0 is no multiple of
      // B0, and about 4 values in 14 are outside the bins.
      {{1000, 10},
       "1000 values, about 4 in 14 outside [0, 10): -2, -1, 10 and 11, and x[1], x[2] the "
       "smallest and largest int32; 4 programs of 256."},
      {{5, 3}, "5 values into 3 bins: a tail of 5 values in one program."},
      // Catches a ragged last block of bins let through, or cut off, by its mask.
      {{257, 17}, "A tail of 1 past 256 values and past 16 bins."},
      {{258, 66}, "A tail of 2 past 256 values and past 64 bins."},
      {{259, 131}, "A tail of 3 past 256 values and past 128 bins."},
      // Catches counts stored rather than added (a plain load and store of the bins, or an
      // atomic_xchg): every program counts into the same bin.
      {{3000, 8}, "Every value is 7: every lane of every program counts into the last bin."},
      // Catches a loop over the bins that stops after its first block, and a bin index that
      // skips the step's offset.
      {{64, 300}, "64 values into 300 bins: 19 or 5 steps of bins, most of them empty."},
      // Catches a loop or an array hard-coded up to 65536 values.
      large_case({131075, 5},
                 "The large tier: 131075 = 2^17 + 3 values into 5 bins, past every loop bound "
                 "or array a kernel might hard-code below them (8192, 16384, 65536)."),
      // Catches a bin count hard-coded up to 65536.
      large_case({1000, 65539},
                 "The large tier: 65539 = 2^16 + 3 bins, the last of them hit, x[1] and x[2] the "
                 "smallest and largest int32."),
  };
  tensor_spec x{"x", false, sizes_at({0}), nullptr, dtype::int32};
  x.fill_ints_for_sizes = fill_values;
  tensor_spec bins{"bins", true, sizes_at({1}), nullptr, dtype::int32};
  bins.zeroed = true;
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {x, bins};
  // The loop over the bins runs NB / B1 steps in every program: 2^17 bins keeps a dry run at
  // the corners in milliseconds.
  s.size_bounds = {{2147483647, 1}, {2147483647, 131072}, {1, 131072}};
  s.size_bounds_rule = "N0 < 2^31, NB <= 2^17";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // Counts are integers: every bin exact, whatever order the atomics ran in.
  s.rtol = 0;
  s.atol = 0;
  s.budgets = {each_element_read_at_most({"x"}, 1),
               atomics_per_program_at_most(
                   "bins", "NB", [](const std::vector<int>& n, const std::vector<int>&) { return 1LL * n[1]; },
                   "a program counts its values first, then adds each bin's count once, not one "
                   "atomic per value")};
}

}  // namespace tp::specs::histogram
#endif  // TILEPUZZLES_SPEC
