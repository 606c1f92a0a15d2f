// Puzzle 13, conv2d: z[n, i, j] = sum_{a, b} x[n, i + a, j + b] * k[a, b].
// Read docs/puzzles/conv2d.md, write the kernel below, then run `./build/tilepuzzles check 13`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// x and z are N0 images of H x W (x[n, i, j] at offset (n * H + i) * W + j), k is one KH x KW
// filter. Beyond the bottom and right edges of an image x reads as 0, so z is H x W too.
// Program (p0, p1, n) computes the B0 x B1 tile of image n of z at rows p0*B0.., columns
// p1*B1..; the filter is small, so walk over its KH * KW taps with loops.
template <int B0, int B1>
struct Conv2d {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    // Your code here.
  }
};

}  // namespace puzzles
