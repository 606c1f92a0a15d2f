// Puzzle 12, flash-attention-simple: z[i] = sum_j softmax_j(q[i] * k[j]) * v[j], one pass over k
// and v with the online softmax of puzzle 10.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct FlashAttentionSimple {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    auto queries = tl::load(q + rows, row_mask, 0.0f);

    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    tl::tile<float, B0> out = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto col_mask = cols < T;
      auto keys = tl::load(k + cols, col_mask, 0.0f);
      auto values = tl::load(v + cols, col_mask, 0.0f);

      // Scores of this block; columns past T must not count in the softmax.
      auto scores = tl::where(col_mask.row(), queries.col() * keys.row(), -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(scores));
      auto weights = tl::exp(scores - new_max.col());
      auto rescale = tl::exp(row_max - new_max);
      row_sum = row_sum * rescale + tl::sum<1>(weights);
      out = out * rescale + tl::sum<1>(weights * values.row());
      row_max = new_max;
    }
    tl::store(z + rows, out / row_sum, row_mask);
  }
};

}  // namespace solutions
