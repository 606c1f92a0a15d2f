// Puzzle 5, outer-add-block: z[j, i] = x[i] + y[j] with a 2-D grid of programs.
// Read docs/puzzles/outer-add-block.md, write the kernel below, then run `./build/tilepuzzles check 5`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// x is [N0], y is [N1], z is [N1, N0]. Program (p0, p1) computes the [B1, B0] tile of z at
// columns p0*B0.. and rows p1*B1..: grid axis 0 walks x, axis 1 walks y. Neither N0 nor N1 is a
// multiple of its block, so the tiles on the right and bottom edges must be masked.
template <int B0, int B1>
struct OuterAddBlock {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    // Your code here.
  }
};

}  // namespace puzzles
