// Puzzle 17, rms-norm: y = x / rms(x) * w along each row of x[N0, D], rows longer than a tile.
// Read docs/puzzles/rms-norm.md, write the kernel below, then run `./build/tilepuzzles check 17`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program normalizes B0 whole rows of x, B1 columns at a time, and scales them by w:
//   y[r, c] = x[r, c] / sqrt(mean_c'(x[r, c']^2) + eps) * w[c],   with eps = 1e-5f.
// Each element of x may be read at most 2 times, each element of y written once, and each
// program may read each element of w at most once.
template <int B0, int B1>
struct RmsNorm {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    // Your code here.
  }
};

}  // namespace puzzles
