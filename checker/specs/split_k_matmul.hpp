// Puzzle 29: split-K matmul, c[M, N] = a[M, K] @ b[K, N], K split over SPLIT_K programs per tile
// of c whose partial tiles are added into c (zeroed by the host) with tl::atomic_add.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(SplitKMatmul, int BM, int BN, int BK, int SPLIT_K)

namespace tp::bindings {

struct split_k_matmul
    : puzzle_binding<split_k_matmul, puzzles::SplitKMatmul, solutions::SplitKMatmul> {
  using signature = void(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c, int M,
                         int N, int K);
  using configs = block_list<blocks<16, 16, 16, 4>, blocks<32, 16, 32, 2>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::split_k_matmul {

void describe(puzzle_spec& s) {
  s.summary = "c = a @ b for a[M, K], b[K, N]; a BM x BN tile of c per program of axes 0 and "
              "1, the blocks of BK along K shared among SPLIT_K programs on axis 2, whose "
              "partial tiles are added into c (zeros at the start) with tl::atomic_add";
  s.size_names = {"M", "N", "K"};
  s.block_names = {"BM", "BN", "BK", "SPLIT_K"};
  s.cases = {
      // Catches a mask or an `other` missing on any axis, and programs with no block of K that
      // add something else than nothing (or zeros).
      {{1, 1, 1}, "All sizes 1: one real element, and every program but the first has no block "
                  "of K."},
      // Catches partial tiles stored instead of added (the last program's slice wins), and every
      // program multiplying all of K (the product SPLIT_K times over).
      {{32, 32, 256}, "32 x 256 @ 256 x 32: 16 or 8 blocks of K, 4 or 2 of them per program."},
      // Catches masks off by one.
      {{17, 18, 19}, "Every size past a multiple of 16 by 1, 2 or 3."},
      // Catches an accumulator or operands kept in a half type (float16 overflows past 65504).
      {{17, 18, 99},
       "a and b far from zero (magnitudes 1e3 to 3e3, all positive, so that nothing cancels): "
       "products up to 9e6, sums up to 9e8 added by the programs of a tile.",
       {{"a", magnitudes_between(1e3, 3e3, 1)}, {"b", magnitudes_between(1e3, 3e3, 1)}}},
      // Catches a row stride taken from the wrong size.
      {{33, 35, 50}, "Sizes past a multiple of 32 with M, N and K all different."},
      // Catches a slice bound rounded down (a last block of K that no program takes).
      {{64, 48, 67}, "K = 67 = 2^6 + 3: a ragged last block of K, taken by one program."},
      // Catches program_id(0) and program_id(1) swapped.
      {{40, 70, 35}, "A tile grid wider than tall."},
      {{67, 37, 131},
       "M = 67, N = 37 and K = 131 = 2^7 + 3 (primes): ragged tiles on every axis with every "
       "block size and a ragged last block of K."},
      // Catches a loop over K or a slice length hard-coded up to 8192.
      large_case({19, 21, 8195},
                 "The large tier: K = 8195 = 2^13 + 3, past the benchmarks' largest K (8192), a "
                 "and b small integers (every product and sum exact in float32, in any order).",
                 {{"a", integers_between(1, 3, 0)}, {"b", integers_between(1, 3, 0)}}),
      // Catches a grid or a row bound hard-coded up to 8192.
      large_case({8195, 5, 7}, "The large tier: M = 8195 rows, past the benchmarks' 8192."),
      // Catches a grid or a column bound hard-coded up to 8192.
      large_case({5, 8195, 7}, "The large tier: N = 8195 columns, past the benchmarks' 8192."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}, {2, 2}};
  s.tensors = {{"a", false, sizes_at({0, 2}), signed_fill()},
               {"b", false, sizes_at({2, 1}), signed_fill()},
               {"c", true, sizes_at({0, 1}), nullptr}};
  s.tensors[2].zeroed = true;
  s.size_bounds = {{2147483647, 1, 1}, {1, 1048560, 2048}, {8191, 8191, 262144},
                   {46340, 46340, 1}};
  s.size_bounds_rule = "M * K, K * N and M * N < 2^31, N <= 65535 * 16 (the GPU grid's axis 1), "
                       "K <= 2^18";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), cdiv(n[1], b[1]), b[3]};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const matrix a = as_matrix(t[0], n[0], n[2]);
    const matrix b = as_matrix(t[1], n[2], n[1]);
    set_from(t[2], matrix(a * b));
  };
  // The SPLIT_K partial tiles of an element are added in whatever order their programs run (the
  // simulator's order, or the GPU's), each addition rounded: float32 sums that differ in the last
  // bits from one order to another, far inside matmul's tolerance.
  s.rtol = 1e-4;
  s.atol = 1e-4;
  // Each program reads its rows of a and its columns of b once (one block of each per step), and
  // adds its partial tile into c once, after its loop.
  s.budgets = {each_program_reads_each_element_at_most({"a", "b"}, 1),
               atomics_per_program_at_most(
                   "c", "BM * BN",
                   [](const std::vector<int>&, const std::vector<int>& b) {
                     return 1LL * b[0] * b[1];
                   },
                   "each program adds its partial tile once, after its loop over K")};
}

}  // namespace tp::specs::split_k_matmul
#endif  // TILEPUZZLES_SPEC
