// Puzzle 34, sliding-window-attention: causal attention over a window of the W most recent keys,
// as Mistral's and Gemma's local layers compute it. Puzzle 16's loop with two changes: it starts
// at the window's first block of keys instead of 0, and a query whose window misses a whole
// block of keys must not turn its running maximum's -inf into NaN.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1, int D>
struct SlidingWindowAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int N, int HEAD_DIM,
                            int W) const {
    const int start_m = tl::program_id(0) * B0;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));

    // Loaded once and kept for every block of keys.
    auto queries = tl::load(q + rows.col() * D + dims.row(), row_mask.col(), 0.0f);  // [B0, D]

    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;

    // The keys this block's queries see run from the first query's oldest key, start_m - W + 1
    // (0 near the start of the sequence), to its last query, start_m + B0 - 1 (N - 1 at the end).
    // The loop starts at the block of B1 keys that holds the oldest one: the blocks before it lie
    // outside every window here, and the blocks after the last query are in the future.
    const int first_key = std::max(0, start_m - W + 1);
    const int end = std::min(N, start_m + B0);
    for (int start_n = first_key / B1 * B1; start_n < end; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      // k loaded transposed, [D, B1], so that q kᵀ is a plain tl::dot.
      auto keys_t = tl::load(k + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + cols.col() * D + dims.row(), col_mask.col(), 0.0f);

      // Each query's own window, i - W < j <= i. The first block visited can hold keys too old
      // for some queries (the loop starts at the block of the *first* query's oldest key), and
      // the last one keys after them: both are masked here with -inf, never a finite floor.
      auto in_window = (cols.row() <= rows.col()) & (cols.row() > rows.col() - W);
      auto scores =
          tl::where(in_window & col_mask.row(), tl::dot(queries, keys_t) * scale, -INFINITY);

      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      // A query whose window misses this whole block and every block before it still has
      // m_new = -inf: exp(-inf - (-inf)) is NaN. Subtracting 0 for it instead gives exp(-inf) = 0,
      // a weight of 0 for each of its (all masked) keys, and leaves its sums at 0.
      auto m_safe = tl::where(m_new == -INFINITY, 0.0f, m_new);
      auto p = tl::exp(scores - m_safe.col());
      auto alpha = tl::exp(m_i - m_safe);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(p, values, acc * alpha.col());
      m_i = m_new;
    }
    // Every real query sees at least its own key, so l_i > 0 on every row stored.
    tl::store(o + rows.col() * D + dims.row(), acc / l_i.col(), row_mask.col());
  }
};

}  // namespace solutions
