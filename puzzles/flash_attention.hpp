// Puzzle 16, flash-attention: multi-head attention forward in float16 and bfloat16.
// Read docs/puzzles/flash-attention.md, write the kernel below, then run `./build/tilepuzzles check 16`.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// q, k, v and o are [Z, H, N, HEAD_DIM] tensors of T (tl::float16 or tl::bfloat16), row-major.
// For each batch and head, o = softmax(q kᵀ / sqrt(HEAD_DIM)) v, where with CAUSAL = 1 query i
// sees only keys j <= i. Program (i, zh) computes the B0 queries i*B0.. of batch and head zh
// (zh = batch * H + head) with a single loop over the keys in steps of B1, reading each element of
// k and v once, accumulating in float32, and storing o in T. D = HEAD_DIM.
template <class T, int B0, int B1, int D>
struct FlashAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
    // Your code here.
  }
};

}  // namespace puzzles
