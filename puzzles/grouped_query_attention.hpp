// Puzzle 35, grouped-query-attention: attention in which G query heads share one head of keys and
// values; a program computes a block of queries of all G heads of its group, so that each block of
// keys and values it loads serves them all.
// Read docs/puzzles/grouped-query-attention.md, write the kernel below, then run `./build/tilepuzzles check 35`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// q and o are [H, N, HEAD_DIM] float32 tensors, k and v [H_KV, N, HEAD_DIM], row-major; H =
// G * H_KV and D = HEAD_DIM. Query head h reads kv head h / G: with scale = 1 / sqrt(HEAD_DIM),
//   o[h, i] = sum over j of softmax_j(scale * q[h, i] . k[h / G, j]) v[h / G, j]   (not causal)
// Program (p, kv) of a (cdiv(N, B0), H_KV) grid computes the rows p*B0 .. p*B0 + B0 - 1 of o in
// each of the G query heads kv*G .. kv*G + G - 1, with one loop over the keys of kv head kv in
// blocks of B1 and the online softmax (puzzle 16). It loads each element of k and v once.
template <int B0, int B1, int G, int D>
struct GroupedQueryAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int H, int H_KV, int N,
                            int HEAD_DIM) const {
    // Your code here.
  }
};

}  // namespace puzzles
