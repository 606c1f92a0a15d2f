// Puzzle 4, outer-add: z[j, i] = x[i] + y[j].
// Read docs/puzzles/outer-add.md, write the kernel below, then run `./build/tilepuzzles check 4`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// x is [N0], y is [N1], z is [N1, N0] (row j, column i at offset j * N0 + i). One program
// computes all of z as one [B1, B0] tile: B0 == N0 and B1 == N1 in every case, so no mask yet.
template <int B0, int B1>
struct OuterAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    // Your code here.
  }
};

}  // namespace puzzles
