// Puzzle 21, rope: the rotary position embedding of each row of x[N0, D], its two halves rotated
// pair by pair by the row's cos and sin tables.
// Read docs/puzzles/rope.md, write the kernel below, then run `./build/tilepuzzles check 21`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each row of x is one token's D features (D even, H = D / 2); cos and sin are [N0, H], the
// tables of the token's position. Each program rotates B0 whole rows, B1 pairs at a time; pair i
// of a row is (x[r, i], x[r, i + H]), the half-split convention of GPT-NeoX and LLaMA:
//   y[r, i]     = x[r, i] * cos[r, i] - x[r, i + H] * sin[r, i]
//   y[r, i + H] = x[r, i + H] * cos[r, i] + x[r, i] * sin[r, i]      for i < H.
// Each element of x, cos and sin may be read once, each element of y written once.
template <int B0, int B1>
struct Rope {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    // Your code here.
  }
};

}  // namespace puzzles
