// Puzzle 25, prefix-sum: the running sums of each row of x[N0, T], rows longer than a tile.
// Read docs/puzzles/prefix-sum.md, write the kernel below, then run `./build/tilepuzzles check 25`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// Each program scans B0 whole rows of x, B1 columns at a time:
//   z[r, c] = x[r, 0] + x[r, 1] + ... + x[r, c].
// Each element of x may be read at most once, and each element of z written once.
template <int B0, int B1>
struct PrefixSum {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
