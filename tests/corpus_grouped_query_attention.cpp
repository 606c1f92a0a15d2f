// The corpus (tests/corpus.hpp) for puzzle 35, grouped-query-attention. Each wrong kernel below
// is a mistake that reads as right (query head h paired with kv head h % H_KV, as if the groups
// were interleaved; kv head 0 for every group; a loop over the G query heads that walks the keys
// once for each, as a kernel launched per query head would; the softmax without its running
// maximum; the keys past N let into the softmax), and each fails on every seed with the kind
// beside its line at the bottom.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/grouped_query_attention.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below.
enum class mistake {
  none,
  head_modulo,      // the program's query heads g * H_KV + kv: head h reads kv head h % H_KV
  kv_head_zero,     // the keys and values of kv head 0 for every group
  no_max,           // p = exp(s), no running maximum: inf / inf or 0 / 0 far from zero
  ragged_unmasked,  // the scores of keys past N (loaded as 0) left in the softmax
};

// The solution's kernel with one mistake: the G heads of the group stacked into [G * B0, D].
template <int B0, int B1, int G, int D, mistake M>
struct gqa_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int H, int H_KV, int N,
                            int HEAD_DIM) const {
    const int start_m = tl::program_id(0) * B0;
    const int kv_head = tl::program_id(1);
    auto r = tl::arange<G * B0>();
    tl::tile<int, G * B0> heads = kv_head * G + r / B0;
    if constexpr (M == mistake::head_modulo) heads = r / B0 * H_KV + kv_head;
    auto rows = start_m + r % B0;
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    auto q_rows = (heads * N + rows) * D;
    const int kv_offset = M == mistake::kv_head_zero ? 0 : kv_head * N * D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto queries = tl::load(q + q_rows.col() + dims.row(), row_mask.col(), 0.0f);
    tl::tile<float, G * B0> m_i = tl::full<G * B0>(-INFINITY);
    tl::tile<float, G * B0> l_i = 0.0f;
    tl::tile<float, G * B0, D> acc = 0.0f;
    for (int start_n = 0; start_n < N; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      auto keys_t = tl::load(k + kv_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + kv_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
      tl::tile<float, G * B0, B1> scores = tl::dot(queries, keys_t) * scale;
      if constexpr (M != mistake::ragged_unmasked)
        scores = tl::where(col_mask.row(), scores, -INFINITY);
      if constexpr (M == mistake::no_max) {
        auto p = tl::exp(scores);
        l_i = l_i + tl::sum<1>(p);
        acc = tl::dot(p, values, acc);
      } else {
        auto m_new = tl::maximum(m_i, tl::max<1>(scores));
        auto p = tl::exp(scores - m_new.col());
        auto alpha = tl::exp(m_i - m_new);
        l_i = l_i * alpha + tl::sum<1>(p);
        acc = tl::dot(p, values, acc * alpha.col());
        m_i = m_new;
      }
    }
    tl::store(o + q_rows.col() + dims.row(), acc / l_i.col(), row_mask.col());
  }
};

// Puzzle 16's kernel run once for each query head of the group, one after the other: right
// values, but each block of keys and values is loaded G times by the program, as it would be by
// G programs launched one per query head.
template <int B0, int B1, int G, int D>
struct gqa_per_query_head {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int H, int H_KV, int N,
                            int HEAD_DIM) const {
    const int start_m = tl::program_id(0) * B0;
    const int kv_head = tl::program_id(1);
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const int kv_offset = kv_head * N * D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    for (int g = 0; g < G; ++g) {
      const int q_offset = (kv_head * G + g) * N * D;
      auto queries = tl::load(q + q_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
      tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
      tl::tile<float, B0> l_i = 0.0f;
      tl::tile<float, B0, D> acc = 0.0f;
      for (int start_n = 0; start_n < N; start_n += B1) {
        auto cols = start_n + tl::arange<B1>();
        auto col_mask = cols < N;
        auto keys_t =
            tl::load(k + kv_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
        auto values =
            tl::load(v + kv_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
        auto scores = tl::where(col_mask.row(), tl::dot(queries, keys_t) * scale, -INFINITY);
        auto m_new = tl::maximum(m_i, tl::max<1>(scores));
        auto p = tl::exp(scores - m_new.col());
        auto alpha = tl::exp(m_i - m_new);
        l_i = l_i * alpha + tl::sum<1>(p);
        acc = tl::dot(p, values, acc * alpha.col());
        m_i = m_new;
      }
      tl::store(o + q_offset + rows.col() * D + dims.row(), acc / l_i.col(), row_mask.col());
    }
  }
};

}  // namespace

namespace wrong {

// Query head h paired with kv head h % H_KV (the program's heads kv, kv + H_KV, ...): the same as
// h / G when G = 1 or H_KV = 1, wrong with two groups of four (case 3).
template <int B0, int B1, int G, int D>
using GqaHeadModulo = gqa_with<B0, B1, G, D, mistake::head_modulo>;
// Every group reads kv head 0: right for the first group only.
template <int B0, int B1, int G, int D>
using GqaKvHeadZero = gqa_with<B0, B1, G, D, mistake::kv_head_zero>;
// A walk over the keys for each query head of the group: right values, G times the reads.
template <int B0, int B1, int G, int D>
using GqaPerQueryHead = gqa_per_query_head<B0, B1, G, D>;
// exp(s) without the running maximum: right on scores near zero, NaN where every score of a query
// lies far below zero (0 / 0) or far above (inf / inf).
template <int B0, int B1, int G, int D>
using GqaNoMaxSubtraction = gqa_with<B0, B1, G, D, mistake::no_max>;
// The last block's keys past N loaded as 0 and scored 0 * q = 0, not -inf: they take weight.
template <int B0, int B1, int G, int D>
using GqaRaggedKeysUnmasked = gqa_with<B0, B1, G, D, mistake::ragged_unmasked>;

}  // namespace wrong

namespace twin {

// The group's heads interleaved rather than stacked (row r is query start + r / G of head
// kv * G + r % G), the scale folded into base 2, the strides from HEAD_DIM, and the loop counted
// in blocks.
template <int B0, int B1, int G, int D>
struct GqaInterleavedHeads {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int H, int H_KV, int N,
                            int HEAD_DIM) const {
    auto lane = tl::arange<B0 * G>();
    auto pos = tl::program_id(0) * B0 + lane / G;
    auto head = tl::program_id(1) * G + lane % G;
    auto d = tl::arange<D>();
    auto base = head * N * HEAD_DIM + pos * HEAD_DIM;
    auto live = pos < N;
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(HEAD_DIM));
    auto qs = tl::load(q + base.col() + d.row(), live.col(), 0.0f);
    auto kv_base = tl::program_id(1) * N * HEAD_DIM;
    tl::tile<float, B0 * G> m = tl::full<B0 * G>(-INFINITY);
    tl::tile<float, B0 * G> l = 0.0f;
    tl::tile<float, B0 * G, D> out = 0.0f;
    for (int blk = 0; blk * B1 < N; ++blk) {
      auto keys = blk * B1 + tl::arange<B1>();
      auto kt = tl::load(k + kv_base + keys.row() * HEAD_DIM + d.col(), (keys < N).row(), 0.0f);
      auto vs = tl::load(v + kv_base + keys.col() * HEAD_DIM + d.row(), (keys < N).col(), 0.0f);
      auto s = tl::where((keys < N).row(), tl::dot(qs, kt) * qk_scale, -INFINITY);
      auto m_next = tl::maximum(m, tl::max<1>(s));
      auto p = tl::exp2(s - m_next.col());
      auto alpha = tl::exp2(m - m_next);
      l = l * alpha + tl::sum<1>(p);
      out = tl::dot(p, vs, out * alpha.col());
      m = m_next;
    }
    tl::store(o + base.col() + d.row(), out / l.col(), live.col());
  }
};

}  // namespace twin

TP_CORPUS_GROUP("grouped-query attention");
TP_WRONG(GqaHeadModulo, grouped_query_attention, "wrong-result", "");
TP_WRONG(GqaKvHeadZero, grouped_query_attention, "wrong-result", "");
TP_WRONG(GqaPerQueryHead, grouped_query_attention, "efficiency-budget",
         "times (at most cdiv(N, B0)");
TP_WRONG(GqaNoMaxSubtraction, grouped_query_attention, "nan-inf", "");
TP_WRONG(GqaRaggedKeysUnmasked, grouped_query_attention, "wrong-result", "");
TP_TWIN(GqaInterleavedHeads, grouped_query_attention);
TP_CORPUS_TESTS("grouped-query attention")
