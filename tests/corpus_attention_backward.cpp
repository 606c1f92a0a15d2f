// The corpus (tests/corpus.hpp) for puzzle 33, attention-backward. Each wrong kernel below is a
// mistake that reads as right (dq stored rather than added, delta or a scale left out, the causal
// mask left out or off by one, P as exp(S) / exp(lse), lse read past T, the query blocks before a
// program's keys visited), and each fails on every seed with the kind beside its line at the
// bottom.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/attention_backward.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below.
enum class mistake {
  none,
  dq_stored,         // dq's share stored, not added: the programs of a head race on its rows
  no_delta,          // dS = P * dP, the softmax's row term left out
  dk_unscaled,       // dk = dSᵀ q, without the scale
  no_causal_mask,    // only the bounds masked: queries see the keys after them
  causal_strict,     // j < i: a query does not see its own key
  exp_over_exp,      // P = exp(S) / exp(lse), overflowing far from zero
  lse_unmasked,      // lse read for every lane of a block of queries, past T
  every_query_block  // the loop over queries from 0: blocks that see none of the keys
};

// Which (key, query) pairs of a block count, [BK, BQ]: key j and query i both below T, and j <= i.
template <mistake M, class Keys, class Queries>
TL_FN auto seen_by(const Keys& keys, const Queries& queries, int T) {
  auto in_bounds = (keys < T).col() & (queries < T).row();
  if constexpr (M == mistake::no_causal_mask) return in_bounds;
  else if constexpr (M == mistake::causal_strict) return (keys.col() < queries.row()) & in_bounds;
  else return (keys.col() <= queries.row()) & in_bounds;
}

template <int BQ, int BK, int D, mistake M>
struct attention_backward_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<const float> dout,
                            tl::ptr<const float> lse, tl::ptr<const float> delta, tl::ptr<float> dq,
                            tl::ptr<float> dk, tl::ptr<float> dv, int H, int T,
                            int HEAD_DIM) const {
    const int start_k = tl::program_id(0) * BK;
    const int head = tl::program_id(1);
    const int head_offset = head * T * D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto keys = start_k + tl::arange<BK>();
    auto dims = tl::arange<D>();
    auto key_rows = head_offset + keys.col() * D + dims.row();
    auto key_mask = (keys < T).col();
    auto k_block = tl::load(k + key_rows, key_mask, 0.0f);
    auto v_block = tl::load(v + key_rows, key_mask, 0.0f);
    tl::tile<float, BK, D> dk_acc = 0.0f;
    tl::tile<float, BK, D> dv_acc = 0.0f;
    const int first_q = M == mistake::every_query_block ? 0 : start_k / BQ * BQ;
    for (int start_q = first_q; start_q < T; start_q += BQ) {
      auto queries = start_q + tl::arange<BQ>();
      auto query_mask = queries < T;
      auto query_rows = head_offset + queries.col() * D + dims.row();
      auto q_block = tl::load(q + query_rows, query_mask.col(), 0.0f);
      auto do_block = tl::load(dout + query_rows, query_mask.col(), 0.0f);
      tl::tile<float, BQ> q_lse = 0.0f;
      if constexpr (M == mistake::lse_unmasked) q_lse = tl::load(lse + head * T + queries);
      else q_lse = tl::load(lse + head * T + queries, query_mask, 0.0f);
      auto q_delta = tl::load(delta + head * T + queries, query_mask, 0.0f);

      auto scores_t = tl::dot(k_block, tl::trans(q_block)) * scale;
      auto seen = seen_by<M>(keys, queries, T);
      tl::tile<float, BK, BQ> p_t = 0.0f;
      if constexpr (M == mistake::exp_over_exp)
        p_t = tl::where(seen, tl::exp(scores_t) / tl::exp(q_lse.row()), 0.0f);
      else p_t = tl::where(seen, tl::exp(scores_t - q_lse.row()), 0.0f);
      dv_acc = tl::dot(p_t, do_block, dv_acc);
      auto dp_t = tl::dot(v_block, tl::trans(do_block));
      tl::tile<float, BK, BQ> ds_t = 0.0f;
      if constexpr (M == mistake::no_delta) ds_t = p_t * dp_t;
      else ds_t = p_t * (dp_t - q_delta.row());
      dk_acc = tl::dot(ds_t, q_block, dk_acc);
      auto dq_share = tl::dot(tl::trans(ds_t), k_block) * scale;
      if constexpr (M == mistake::dq_stored) tl::store(dq + query_rows, dq_share, query_mask.col());
      else tl::atomic_add(dq + query_rows, dq_share, query_mask.col());
    }
    if constexpr (M == mistake::dk_unscaled) tl::store(dk + key_rows, dk_acc, key_mask);
    else tl::store(dk + key_rows, dk_acc * scale, key_mask);
    tl::store(dv + key_rows, dv_acc, key_mask);
  }
};

}  // namespace

namespace wrong {

// dq's share stored instead of added: with several blocks of keys in a head (T = 35 or 67 for
// BK = 32), the programs store into the same rows of dq and the last one wins.
template <int BQ, int BK, int D>
using AttentionBackwardDqStored = attention_backward_with<BQ, BK, D, mistake::dq_stored>;
// dS = P * dP: delta left out; right only where dP's row sum happens to be 0 (T = 1 shows it).
template <int BQ, int BK, int D>
using AttentionBackwardWithoutDelta = attention_backward_with<BQ, BK, D, mistake::no_delta>;
// dk without the scale (dq keeps it): sqrt(32) times too large.
template <int BQ, int BK, int D>
using AttentionBackwardDkUnscaled = attention_backward_with<BQ, BK, D, mistake::dk_unscaled>;
// The causal mask left out: each query sees the keys after it too (lse does not count them, so P
// is not even a softmax).
template <int BQ, int BK, int D>
using AttentionBackwardNotCausal = attention_backward_with<BQ, BK, D, mistake::no_causal_mask>;
// The causal mask off by one (j < i): a query misses its own key; the first sees none.
template <int BQ, int BK, int D>
using AttentionBackwardCausalStrict = attention_backward_with<BQ, BK, D, mistake::causal_strict>;
// P = exp(S) / exp(lse), equal to exp(S - lse) on paper: far from zero (case 2) exp(S) overflows
// to inf or underflows to 0, and P is inf / inf or 0 / 0.
template <int BQ, int BK, int D>
using AttentionBackwardExpOverExp = attention_backward_with<BQ, BK, D, mistake::exp_over_exp>;
// lse loaded without the queries' mask: the last block of queries reads past the end of lse.
template <int BQ, int BK, int D>
using AttentionBackwardLseUnmasked = attention_backward_with<BQ, BK, D, mistake::lse_unmasked>;
// Right values, but every program walks every block of queries from 0, those before its first
// key too (their P is all zeros): the atomics on dq add zeros, past the causal budget.
template <int BQ, int BK, int D>
using AttentionBackwardEveryQueryBlock =
    attention_backward_with<BQ, BK, D, mistake::every_query_block>;

}  // namespace wrong

namespace twin {

// The blocks as the forward pass holds them, [BQ, BK] (queries down, keys across), P in base 2
// (exp2 of S * log2(e) - lse * log2(e)), and the loop over queries from the program's first key
// itself, a block of queries that need not start at a multiple of BQ.
template <int BQ, int BK, int D>
struct AttentionBackwardQueriesDown {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<const float> dout,
                            tl::ptr<const float> lse, tl::ptr<const float> delta, tl::ptr<float> dq,
                            tl::ptr<float> dk, tl::ptr<float> dv, int H, int T,
                            int HEAD_DIM) const {
    const int head = tl::program_id(1);
    auto keys = tl::program_id(0) * BK + tl::arange<BK>();
    auto dims = tl::arange<D>();
    auto k_ptrs = head * T * D + keys.col() * D + dims.row();
    auto k_block = tl::load(k + k_ptrs, (keys < T).col(), 0.0f);
    auto v_block = tl::load(v + k_ptrs, (keys < T).col(), 0.0f);
    const float log2e = 1.44269504f;
    const float scale = 1.0f / std::sqrt(static_cast<float>(HEAD_DIM));
    tl::tile<float, BK, D> dk_sum = 0.0f, dv_sum = 0.0f;
    for (int first = tl::program_id(0) * BK; first < T; first += BQ) {
      auto rows = first + tl::arange<BQ>();
      auto live = rows < T;
      auto q_ptrs = head * T * D + rows.col() * D + dims.row();
      auto q_block = tl::load(q + q_ptrs, live.col(), 0.0f);
      auto g_block = tl::load(dout + q_ptrs, live.col(), 0.0f);
      auto row_lse = tl::load(lse + head * T + rows, live, 0.0f) * log2e;
      auto s = tl::dot(q_block, tl::trans(k_block)) * (scale * log2e);  // [BQ, BK]
      auto p = tl::where(live.col() & (keys.row() <= rows.col()), tl::exp2(s - row_lse.col()),
                         0.0f);
      dv_sum = tl::dot(tl::trans(p), g_block, dv_sum);
      auto dp = tl::dot(g_block, tl::trans(v_block));  // [BQ, BK]
      auto ds = p * (dp - tl::load(delta + head * T + rows, live, 0.0f).col()) * scale;
      dk_sum = tl::dot(tl::trans(ds), q_block, dk_sum);
      tl::atomic_add(dq + q_ptrs, tl::dot(ds, k_block), live.col());
    }
    tl::store(dk + k_ptrs, dk_sum, (keys < T).col());
    tl::store(dv + k_ptrs, dv_sum, (keys < T).col());
  }
};

}  // namespace twin

TP_CORPUS_GROUP("attention backward");
TP_WRONG(AttentionBackwardDqStored, attention_backward, "race-write-write", "stores to dq elements");
TP_WRONG(AttentionBackwardWithoutDelta, attention_backward, "wrong-result", "");
TP_WRONG(AttentionBackwardDkUnscaled, attention_backward, "wrong-result", "");
TP_WRONG(AttentionBackwardNotCausal, attention_backward, "wrong-result", "");
TP_WRONG(AttentionBackwardCausalStrict, attention_backward, "wrong-result", "");
TP_WRONG(AttentionBackwardExpOverExp, attention_backward, "nan-inf", "");
TP_WRONG(AttentionBackwardLseUnmasked, attention_backward, "out-of-bounds", "loads from lse outside");
TP_WRONG(AttentionBackwardEveryQueryBlock, attention_backward, "efficiency-budget", "atomics on dq");
TP_TWIN(AttentionBackwardQueriesDown, attention_backward);
TP_CORPUS_TESTS("attention backward")
