// Puzzle 27, top-k: the K largest values of each row of x[N0, T], rows longer than a tile.
// Read docs/puzzles/top-k.md, write the kernel below, then run `./build/tilepuzzles check 27`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program finds, for B0 whole rows of x walked B1 columns at a time, the K largest values
// of each row (1 <= K <= 8, K <= T), largest first:
//   top[r, 0] >= top[r, 1] >= ... >= top[r, K - 1], the K largest of x[r, :].
// Each element of x may be read at most once, and each element of top written once.
template <int B0, int B1>
struct TopK {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> top, int N0, int T,
                            int K) const {
    // Your code here.
  }
};

}  // namespace puzzles
