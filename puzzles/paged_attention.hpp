// Puzzle 31, paged-attention: one decoding step of attention over a paged key/value cache.
// Read docs/puzzles/paged-attention.md, write the kernel below, then run
// `./build/tilepuzzles check 31`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Program (s, h) computes, for sequence s and head h, with n = seq_lens[s]:
//   out[s, h, :] = sum_{t < n} softmax_t(q[s, h, :] . k_t / sqrt(D)) v_t
// where position t of sequence s is slot t % PS of page block_table[s, t / PS], and k_t, v_t are
// k_cache[page, slot, h, :] and v_cache[page, slot, h, :] (caches of shape [P, PS, H, D]).
// B0 positions per step; B1 >= D lanes hold a head.
// Each element of q, k_cache and v_cache may be read at most once, each program reads its
// seq_lens entry once, and each element of out is written once.
template <int B0, int B1>
struct PagedAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k_cache,
                            tl::ptr<const float> v_cache, tl::ptr<const int> block_table,
                            tl::ptr<const int> seq_lens, tl::ptr<float> out, int S, int H, int D,
                            int L, int PS, int P) const {
    // Your code here.
  }
};

}  // namespace puzzles
