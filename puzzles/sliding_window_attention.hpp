// Puzzle 34, sliding-window-attention: causal attention in which each query sees only the W most
// recent keys, itself included; a program visits only the blocks of keys its queries' windows reach.
// Read docs/puzzles/sliding-window-attention.md, write the kernel below, then run `./build/tilepuzzles check 34`.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// q, k, v and o are [N, HEAD_DIM] float32 tensors, row-major, one sequence; D = HEAD_DIM. With
// scale = 1 / sqrt(HEAD_DIM), query i sees the keys j with i - W < j <= i (W >= 1):
//   o[i] = sum over those j of softmax_j(scale * q[i] . k[j]) v[j]
// Program p of a cdiv(N, B0) grid computes the rows p*B0 .. p*B0 + B0 - 1 of o with one loop over
// the keys in blocks of B1 and the online softmax (puzzle 12). It visits only the blocks of keys
// that some query of its block sees, and loads each of their elements once.
template <int B0, int B1, int D>
struct SlidingWindowAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int N, int HEAD_DIM,
                            int W) const {
    // Your code here.
  }
};

}  // namespace puzzles
