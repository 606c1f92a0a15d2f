// Puzzle 12, flash-attention-simple: z[i] = sum_j softmax_j(q[i] * k[j]) * v[j].
// Read docs/puzzles/flash-attention-simple.md, write the kernel below, then run `./build/tilepuzzles check 12`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program computes B0 outputs z[i] with a single loop over T in blocks of B1, reading each
// element of k and v once. No score matrix in memory: keep a running maximum, sum and output
// per query.
template <int B0, int B1>
struct FlashAttentionSimple {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                            tl::ptr<float> z, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
