// Puzzle 15, matmul-int4: z = dequantize(weight, scale, zero) @ activation, 4-bit weights.
// Read docs/puzzles/matmul-int4.md, write the kernel below, then run `./build/tilepuzzles check 15`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// weight is [N0, MID / 8] int32, eight 4-bit weights per int32 (weight k of a row sits in bits
// 4 * (k % 8) of element k / 8); scale is [N0, MID / 8], one float per group of 8 weights; zero
// is [N0, MID / 64] int32, the groups' 4-bit zero points packed the same way. activation is
// [MID, N1], z is [N0, N1]. Program (i, j) computes the B0 x B1 tile of
//   z = (scale * (w - zero)) @ activation
// with a loop over MID in steps of B_MID (a multiple of 64; MID is one too).
template <int B0, int B1, int B_MID>
struct MatmulInt4 {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> scale, tl::ptr<const int> zero,
                            tl::ptr<const int> weight, tl::ptr<const float> activation,
                            tl::ptr<float> z, int N0, int N1, int MID) const {
    // Your code here.
  }
};

}  // namespace puzzles
