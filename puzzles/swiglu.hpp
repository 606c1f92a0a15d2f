// Puzzle 22, swiglu: the fused SwiGLU gate, y = silu(a) * b, a and b the two halves of each row of
// x[N0, 2D].
// Read docs/puzzles/swiglu.md, write the kernel below, then run `./build/tilepuzzles check 22`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each row of x holds a gate a = x[r, 0 .. D-1] and a value b = x[r, D .. 2D-1] (one matrix
// multiply made both). Each program computes B0 whole rows of y[N0, D], B1 columns at a time:
//   y[r, c] = silu(a[r, c]) * b[r, c],   silu(a) = a * sigmoid(a) = a / (1 + exp(-a)).
// Each element of x may be read once, each element of y written once.
template <int B0, int B1>
struct Swiglu {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    // Your code here.
  }
};

}  // namespace puzzles
