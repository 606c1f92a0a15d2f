// Puzzle 33, attention-backward: the gradients dq, dk, dv of causal attention, one program per
// block of keys, P recomputed from the forward's saved log-sum-exp, dq's shares added atomically.
// Read docs/puzzles/attention-backward.md, write the kernel below, then run `./build/tilepuzzles check 33`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// q, k, v, dout (dO, the gradient of the output o) and dq, dk, dv are [H, T, HEAD_DIM] float32
// tensors, row-major; lse and delta are [H, T]. For each head, with scale = 1 / sqrt(HEAD_DIM) and
// query i seeing only keys j <= i (causal):
//   S = scale * q kᵀ,  P = exp(S - lse) (0 where j > i),  lse[i] = log(sum over j <= i of exp(S[i, j]))
//   dv = Pᵀ dO,  dP = dO vᵀ,  dS = P * (dP - delta),  delta[i] = sum over d of dO[i, d] * o[i, d]
//   dk = scale * dSᵀ q,  dq = scale * dS k
// lse and delta are given (the forward pass saved lse; delta is a small preprocessing pass).
// Program (j, h) of a (cdiv(T, BK), H) grid owns keys j*BK .. j*BK + BK - 1 of head h: it loops
// over the blocks of BQ queries that see any of its keys, stores its rows of dk and dv once, and
// adds its share of each query block's dq into dq (zeros at the start) with tl::atomic_add.
// D = HEAD_DIM.
template <int BQ, int BK, int D>
struct AttentionBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<const float> dout,
                            tl::ptr<const float> lse, tl::ptr<const float> delta, tl::ptr<float> dq,
                            tl::ptr<float> dk, tl::ptr<float> dv, int H, int T,
                            int HEAD_DIM) const {
    // Your code here.
  }
};

}  // namespace puzzles
