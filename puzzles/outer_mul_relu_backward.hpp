// Puzzle 7, outer-mul-relu-backward: dx[j, i] = (x[j, i] * y[j] > 0) * y[j] * dz[j, i].
// Read docs/puzzles/outer-mul-relu-backward.md, write the kernel below, then run `./build/tilepuzzles check 7`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// The backward pass of z = relu(x * y) with respect to x, where x is a matrix [N1, N0] and y a
// vector [N1] scaling its rows: given dz = dL/dz [N1, N0], compute dx = dL/dx [N1, N0].
// Program (p0, p1) computes the [B1, B0] tile of dx at columns p0*B0.. and rows p1*B1...
template <int B0, int B1>
struct OuterMulReluBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    // Your code here.
  }
};

}  // namespace puzzles
