// Puzzle 36, int8-matmul: z = (a_scale a) @ (b @ b_scale) for int8 a and b, accumulated in int32.
// Read docs/puzzles/int8-matmul.md, write the kernel below, then run `./build/tilepuzzles check 36`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// a is [M, K] int8 with one float scale per row (a_scale, [M]); b is [K, N] int8 with one float
// scale per column (b_scale, [N]); z is [M, N] floats. Program (i, j) computes the B0 x B1 tile of
// z at rows i*B0.., columns j*B1.., with a loop over K in steps of B_K.
template <int B0, int B1, int B_K>
struct Int8Matmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const tl::int8> a, tl::ptr<const tl::int8> b,
                            tl::ptr<const float> a_scale, tl::ptr<const float> b_scale,
                            tl::ptr<float> z, int M, int N, int K) const {
    // Your code here.
  }
};

}  // namespace puzzles
