// Puzzle 16, flash-attention: multi-head attention forward, o = softmax(q kᵀ / sqrt(d)) v per
// batch and head, in float16 or bfloat16 with float32 accumulation, optionally causal.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <class T, int B0, int B1, int D>
struct FlashAttention {
  // One warp for every 16 queries, the rows of one tensor-core product, from 4 to 8 warps.
  static constexpr int num_warps = std::clamp(B0 / 16, 4, 8);
  // With 8 warps and head_dim 64, two programs per multiprocessor (128 registers a thread), so
  // that one's softmax runs while the other's products do; 0 leaves the GPU compiler free.
  static constexpr int min_blocks_per_multiprocessor = num_warps == 8 && D <= 64 ? 2 : 0;

  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
    int start_m = tl::program_id(0) * B0;
    int head = tl::program_id(1);  // batch * H + h
    int head_offset = head * N * D;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;

    // Scores in base 2: exp2(s * log2(e)) = exp(s), and exp2 is the fast one on the GPU.
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
    // Loaded once and kept, in the declared layout, for every block of keys.
    tl::tile<T, B0, D> queries =
        tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);

    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    // Causal: no key past this block's last query is ever seen.
    int end = CAUSAL ? std::min(N, start_m + B0) : N;
    for (int start_n = 0; start_n < end; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      // k is loaded transposed, [D, B1], so that q @ kᵀ is a plain tl::dot.
      auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);

      auto visible = col_mask.row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      auto scores = tl::where(visible, tl::dot(queries, keys_t) * qk_scale, -INFINITY);
      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      auto p = tl::exp2(scores - m_new.col());
      auto alpha = tl::exp2(m_i - m_new);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(tl::cast<T>(p), values, acc * alpha.col());
      m_i = m_new;
    }
    tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
              row_mask.col());
  }
};

}  // namespace solutions
