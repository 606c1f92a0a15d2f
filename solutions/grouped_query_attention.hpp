// Puzzle 35, grouped-query-attention: attention in which G query heads share each head of keys and
// values, as Llama 2 and 3 and Mistral compute it. Puzzle 16's loop over blocks of keys, with the
// queries of the G heads of a group stacked into one [G * B0, D] tile: each block of keys and
// values is loaded once and serves all of them.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1, int G, int D>
struct GroupedQueryAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int H, int H_KV, int N,
                            int HEAD_DIM) const {
    const int start_m = tl::program_id(0) * B0;
    const int kv_head = tl::program_id(1);
    // The G query heads of this kv head, kv_head * G .. kv_head * G + G - 1, stacked: row r of
    // the tile is query start_m + r % B0 of head kv_head * G + r / B0.
    auto r = tl::arange<G * B0>();
    auto heads = kv_head * G + r / B0;
    auto rows = start_m + r % B0;
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    auto q_rows = (heads * N + rows) * D;  // where each row starts, in q and in o
    const int kv_offset = kv_head * N * D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));

    // Loaded once and kept for every block of keys.
    auto queries = tl::load(q + q_rows.col() + dims.row(), row_mask.col(), 0.0f);  // [G*B0, D]

    tl::tile<float, G * B0> m_i = tl::full<G * B0>(-INFINITY);
    tl::tile<float, G * B0> l_i = 0.0f;
    tl::tile<float, G * B0, D> acc = 0.0f;
    for (int start_n = 0; start_n < N; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      // One block of this kv head's keys and values, loaded once for all G query heads; k
      // transposed, [D, B1], so that q kᵀ is a plain tl::dot.
      auto keys_t = tl::load(k + kv_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + kv_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);

      auto scores = tl::where(col_mask.row(), tl::dot(queries, keys_t) * scale, -INFINITY);
      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      auto p = tl::exp(scores - m_new.col());
      auto alpha = tl::exp(m_i - m_new);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(p, values, acc * alpha.col());
      m_i = m_new;
    }
    tl::store(o + q_rows.col() + dims.row(), acc / l_i.col(), row_mask.col());
  }
};

}  // namespace solutions
