// Puzzle 33, attention-backward: the gradients of causal attention in FlashAttention-2's order.
// A program owns a block of keys: it keeps their k and v, walks the blocks of queries that see
// them, recomputes Pᵀ from the forward's saved log-sum-exp (P is never stored), accumulates dk and
// dv in registers, and adds its share of each query block's dq into dq with one atomic_add.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int BQ, int BK, int D>
struct AttentionBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<const float> dout,
                            tl::ptr<const float> lse, tl::ptr<const float> delta, tl::ptr<float> dq,
                            tl::ptr<float> dk, tl::ptr<float> dv, int H, int T,
                            int HEAD_DIM) const {
    const int start_k = tl::program_id(0) * BK;
    const int head = tl::program_id(1);
    const int head_offset = head * T * D;  // of q, k, v, dout, dq, dk, dv; lse and delta: head * T
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto keys = start_k + tl::arange<BK>();
    auto dims = tl::arange<D>();
    auto key_rows = head_offset + keys.col() * D + dims.row();  // [BK, D]
    auto key_mask = (keys < T).col();

    // This program's keys and values: loaded once, kept for every block of queries.
    auto k_block = tl::load(k + key_rows, key_mask, 0.0f);
    auto v_block = tl::load(v + key_rows, key_mask, 0.0f);
    tl::tile<float, BK, D> dk_acc = 0.0f;
    tl::tile<float, BK, D> dv_acc = 0.0f;

    // Causal: a query before start_k sees none of these keys, so the loop starts at the block of
    // queries that holds start_k.
    for (int start_q = start_k / BQ * BQ; start_q < T; start_q += BQ) {
      auto queries = start_q + tl::arange<BQ>();
      auto query_mask = queries < T;
      auto query_rows = head_offset + queries.col() * D + dims.row();  // [BQ, D]
      auto q_block = tl::load(q + query_rows, query_mask.col(), 0.0f);
      auto do_block = tl::load(dout + query_rows, query_mask.col(), 0.0f);
      auto q_lse = tl::load(lse + head * T + queries, query_mask, 0.0f);
      auto q_delta = tl::load(delta + head * T + queries, query_mask, 0.0f);

      // Pᵀ [BK, BQ], recomputed: exp(S - lse) is already normalized, no running maximum needed.
      // Key j is seen by query i when j <= i; with i < T, that keeps the keys past T out too.
      auto scores_t = tl::dot(k_block, tl::trans(q_block)) * scale;
      auto seen = (keys.col() <= queries.row()) & query_mask.row();
      auto p_t = tl::where(seen, tl::exp(scores_t - q_lse.row()), 0.0f);
      // dv += Pᵀ dO
      dv_acc = tl::dot(p_t, do_block, dv_acc);
      // dSᵀ = Pᵀ * (dPᵀ - delta), dPᵀ = v dOᵀ: the softmax's gradient through each query's row.
      auto ds_t = p_t * (tl::dot(v_block, tl::trans(do_block)) - q_delta.row());
      // dk += dSᵀ q (scaled once, after the loop)
      dk_acc = tl::dot(ds_t, q_block, dk_acc);
      // This block of keys' share of dq = scale * dS k; the other blocks of keys add theirs.
      tl::atomic_add(dq + query_rows, tl::dot(tl::trans(ds_t), k_block) * scale, query_mask.col());
    }
    tl::store(dk + key_rows, dk_acc * scale, key_mask);
    tl::store(dv + key_rows, dv_acc, key_mask);
  }
};

}  // namespace solutions
