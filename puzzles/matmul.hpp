// Puzzle 14, matmul: batched z[b] = x[b] @ y[b].
// Read docs/puzzles/matmul.md, write the kernel below, then run `./build/tilepuzzles check 14`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// x is [N2, N0, MID], y is [N2, MID, N1], z is [N2, N0, N1]. Program (i, j, b) computes the
// B0 x B1 tile of z[b] at rows i*B0.., columns j*B1.., with a loop over MID in steps of B_MID
// that multiplies tiles with tl::dot.
template <int B0, int B1, int B_MID>
struct Matmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    // Your code here.
  }
};

}  // namespace puzzles
