// Puzzle 18, layer-norm: y = (x - mean) / std * w + b along each row of x[N0, D], the mean and the
// variance of each row in one pass.
// Read docs/puzzles/layer-norm.md, write the kernel below, then run `./build/tilepuzzles check 18`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program normalizes B0 whole rows of x, B1 columns at a time. For each row r:
//   mean[r] = mean_c x[r, c],   var_r = mean_c (x[r, c] - mean[r])^2   (divided by D, not D - 1),
//   rstd[r] = 1 / sqrt(var_r + eps),   y[r, c] = (x[r, c] - mean[r]) * rstd[r] * w[c] + b[c],
// with eps = 1e-5f. Each element of x may be read at most 2 times (one pass for the mean and the
// variance together, one for y), each output element written once, and each program may read each
// element of w and b at most once. Some rows lie far from zero: see the page on accuracy.
template <int B0, int B1>
struct LayerNorm {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    // Your code here.
  }
};

}  // namespace puzzles
