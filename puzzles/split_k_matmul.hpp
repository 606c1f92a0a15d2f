// Puzzle 29, split-k-matmul: c = a @ b, the shared dimension K split over several programs whose
// partial tiles meet in c through tl::atomic_add.
// Read docs/puzzles/split-k-matmul.md, write the kernel below, then run `./build/tilepuzzles check 29`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// a[M, K] @ b[K, N] = c[M, N], row-major; c starts as zeros (the host zeroes it before the
// launch). Program (m, n, z) of a (cdiv(M, BM), cdiv(N, BN), SPLIT_K) grid owns the BM x BN tile
// (m, n) of c and the blocks of BK along K numbered z, z + SPLIT_K, z + 2 * SPLIT_K, ...:
//   c[tile] += sum over its blocks of a[tile rows, block] @ b[block, tile columns].
// The SPLIT_K programs of a tile add into the same elements of c: with tl::atomic_add, once each.
template <int BM, int BN, int BK, int SPLIT_K>
struct SplitKMatmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c,
                            int M, int N, int K) const {
    // Your code here.
  }
};

}  // namespace puzzles
