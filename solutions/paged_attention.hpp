// Puzzle 31, paged-attention: one decoding step of attention, the query of each (sequence, head)
// against the keys and values of its sequence, which live in pages of a shared cache that the
// block table names: puzzle 12's online softmax over a gather.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct PagedAttention {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k_cache,
                            tl::ptr<const float> v_cache, tl::ptr<const int> block_table,
                            tl::ptr<const int> seq_lens, tl::ptr<float> out, int S, int H, int D,
                            int L, int PS, int P) const {
    const int seq = tl::program_id(0), head = tl::program_id(1);
    const int length = tl::load(seq_lens + seq);
    auto dims = tl::arange<B1>();
    auto dim_mask = dims < D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto query = tl::load(q + (seq * H + head) * D + dims, dim_mask, 0.0f) * scale;

    tl::tile<float> running_max = -INFINITY;
    tl::tile<float> running_sum = 0.0f;
    tl::tile<float, B1> acc = 0.0f;
    for (int t = 0; t < length; t += B0) {
      auto positions = t + tl::arange<B0>();
      auto live = positions < length;
      // Each position's page from the block table, then its row of the caches.
      auto page = tl::load(block_table + seq * L + positions / PS, live, 0);
      auto rows = ((page * PS + positions % PS) * H + head) * D;
      auto mask = live.col() & dim_mask.row();
      auto keys = tl::load(k_cache + rows.col() + dims.row(), mask, 0.0f);      // [B0, B1]
      auto values = tl::load(v_cache + rows.col() + dims.row(), mask, 0.0f);

      auto scores = tl::where(live, tl::sum<1>(keys * query.row()), -INFINITY);  // [B0]
      auto new_max = tl::maximum(running_max, tl::max(scores));
      auto weights = tl::exp(scores - new_max);
      auto rescale = tl::exp(running_max - new_max);
      running_sum = running_sum * rescale + tl::sum(weights);
      acc = acc * rescale + tl::sum<0>(weights.col() * values);
      running_max = new_max;
    }
    tl::store(out + (seq * H + head) * D + dims, acc / running_sum, dim_mask);
  }
};

}  // namespace solutions
