// Puzzle 19, softmax-backward: the gradient of the row-wise softmax, dx = y * (dy - sum(dy * y)),
// each row of y[N0, T] in one tile.
// Read docs/puzzles/softmax-backward.md, write the kernel below, then run `./build/tilepuzzles check 19`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// y = softmax(x) along each row (the forward pass's output) and dy, the gradient of the loss with
// respect to y, are given; each program computes B0 whole rows of the gradient with respect to x:
//   dx[r, c] = y[r, c] * (dy[r, c] - sum_c' dy[r, c'] * y[r, c']).
// A row fits in one tile: T <= B1 in every case, so there is no loop. Each element of y and dy is
// read once and each element of dx written once.
template <int B0, int B1>
struct SoftmaxBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
