// Puzzle 16, flash-attention, the fast variant: solutions/flash_attention.hpp with its loop over
// keys a pipelined tl::range, which copies the next block's k and v into shared memory while this
// block's products run (Triton's `num_stages`). Checked by the same spec (tests/
// corpus_quantized_attention.cpp); `tilepuzzles bench flash-attention` times both. Faster at
// head_dim 128 (bench/HISTORY.md), slower at 64, where the plain loop's registers fit two programs
// per multiprocessor and this one's do not.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <class T, int B0, int B1, int D>
struct FlashAttentionPipelined {
  // One warp for every 16 queries, the rows of one tensor-core product, from 4 to 8 warps.
  static constexpr int num_warps = std::clamp(B0 / 16, 4, 8);
  // With 8 warps and head_dim 64, two programs per multiprocessor (128 registers a thread).
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
    tl::tile<T, B0, D> queries =
        tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);

    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    int end = CAUSAL ? std::min(N, start_m + B0) : N;
    for (auto start_n : tl::range(0, end, B1, tl::num_stages<2>)) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      // q kᵀ with k loaded as it lies, [B1, D]: 16-byte rows to copy ahead. Its masked-off keys
      // need no `other`: their scores are masked below. (k's tile lives in the lambda only: left
      // in the loop's scope, nvcc 13.0 kept 712 bytes of it in local memory at 64 x 64 x 128.)
      auto products = [&] {
        auto keys = tl::load(k + head_offset + cols.col() * D + dims.row(), col_mask.col());
        return tl::dot(queries, tl::trans(keys));
      };
      // The masked-off values must be 0: p v multiplies them, and 0 * NaN is NaN.
      auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);

      auto visible = col_mask.row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      auto scores = tl::where(visible, products() * qk_scale, -INFINITY);
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
