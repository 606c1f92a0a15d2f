// Puzzle 6, outer-mul-relu: z[j, i] = relu(x[i] * y[j]).
// Read docs/puzzles/outer-mul-relu.md, write the kernel below, then run `./build/tilepuzzles check 6`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// The grid and the tiles of puzzle 5: x is [N0], y is [N1], z is [N1, N0], and program (p0, p1)
// computes the [B1, B0] tile of z at columns p0*B0.. and rows p1*B1... Multiply, then take
// relu(v) = max(v, 0), in the same kernel: the product never goes to memory.
template <int B0, int B1>
struct OuterMulRelu {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    // Your code here.
  }
};

}  // namespace puzzles
