// Puzzle 14: batched matrix multiplication with tl::dot.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Matmul, int B0, int B1, int B_MID)

namespace tp::bindings {

struct matmul : puzzle_binding<matmul, puzzles::Matmul, solutions::Matmul> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1, int N2, int MID);
  using configs = block_list<blocks<16, 16, 16>, blocks<32, 16, 32>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::matmul {

void describe(puzzle_spec& s) {
  s.summary = "z[b] = x[b] @ y[b] for x[N2, N0, MID], y[N2, MID, N1]; a B0 x B1 tile of z per "
              "program, a loop over MID in steps of B_MID";
  s.size_names = {"N0", "N1", "N2", "MID"};
  s.block_names = {"B0", "B1", "B_MID"};
  s.cases = {
      // Catches a mask or an `other` missing on any axis (the padding along MID must load as 0).
      {{1, 1, 1, 1}, "All sizes 1: every tile is one real element."},
      // Catches a batch offset left out of x, y or z.
      {{32, 32, 4, 32}, "The classic puzzle set's 4 batches of 32 x 32 @ 32 x 32."},
      // Catches masks off by one.
      {{17, 18, 2, 19}, "Every size past a multiple of 16 by 1, 2 or 3."},
      // Catches an accumulator or operands kept in a half type (float16 overflows past 65504).
      {{17, 18, 2, 19},
       "x and y far from zero (magnitudes 1e4 to 3e4, all positive, so that nothing cancels): "
       "products up to 9e8 and sums up to 2e10.",
       {{"x", magnitudes_between(1e4, 3e4, 1)}, {"y", magnitudes_between(1e4, 3e4, 1)}}},
      // Catches a batch or row stride taken from the wrong size.
      {{33, 35, 3, 50},
       "Sizes past a multiple of 32 with N0, N1 and MID all different; three batches."},
      // Catches a loop that drops it (k + B_MID <= MID).
      {{64, 48, 1, 67}, "MID = 67 = 2^6 + 3: a ragged last step along MID."},
      // Catches program_id(0) and program_id(1) swapped.
      {{40, 70, 2, 35}, "A tile grid wider than tall."},
      {{67, 37, 3, 131},
       "N0 = 67, N1 = 37 and MID = 131 = 2^7 + 3 (primes), three batches: ragged tiles on every "
       "axis with every block size, a grid that is not square, and a loop over MID past 128."},
      // Catches a loop over MID or a tile of k hard-coded up to 8192.
      large_case({19, 21, 1, 8195},
                 "The large tier: MID = 8195 = 2^13 + 3, past the benchmarks' largest K (8192), "
                 "x and y small integers (every product and sum exact in float32).",
                 {{"x", integers_between(1, 3, 0)}, {"y", integers_between(1, 3, 0)}}),
      // Catches a grid or a row bound hard-coded up to 8192.
      large_case({8195, 5, 1, 7}, "The large tier: N0 = 8195 rows, past the benchmarks' 8192."),
      // Catches a grid or a column bound hard-coded up to 8192.
      large_case({5, 8195, 1, 7},
                 "The large tier: N1 = 8195 columns, past the benchmarks' 8192."),
      // Catches a batch bound hard-coded up to 1024.
      large_case({3, 5, 1027, 7}, "The large tier: 1027 = 2^10 + 3 batches."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}, {3, 2}};
  s.tensors = {
      {"x", false, sizes_at({2, 0, 3}), signed_fill()},
      {"y", false, sizes_at({2, 3, 1}), signed_fill()},
      {"z", true, sizes_at({2, 0, 1}), nullptr}};
  s.size_bounds = {{2147483647, 1, 1, 1}, {1, 1048560, 1, 2048}, {8191, 8191, 1, 262144},
                   {1, 1, 65535, 32767}, {46340, 46340, 1, 1}};
  s.size_bounds_rule =
      "N2 * N0 * MID, N2 * MID * N1 and N2 * N0 * N1 < 2^31, N1 <= 65535 * 16 and N2 <= 65535 (the "
      "GPU grid's axes 1 and 2), MID <= 2^18";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), cdiv(n[1], b[1]), n[2]};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const long long N0 = n[0], N1 = n[1], N2 = n[2], MID = n[3];
    for (long long b = 0; b < N2; ++b) {
      const matrix x = as_matrix(t[0], N0, MID, b * N0 * MID);
      const matrix y = as_matrix(t[1], MID, N1, b * MID * N1);
      set_from(t[2], matrix(x * y), b * N0 * N1);
    }
  };
  s.rtol = 1e-4;
  s.atol = 1e-4;
  // Each program reads its rows of x and its columns of y once: one tile of each per k step.
  s.budgets = {each_program_reads_each_element_at_most({"x", "y"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::matmul
#endif  // TILEPUZZLES_SPEC
