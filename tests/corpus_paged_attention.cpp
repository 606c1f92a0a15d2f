// The corpus (tests/corpus.hpp) for puzzle 31, paged-attention. Each wrong kernel below is a
// mistake that reads as right (the cache as if contiguous, a page as long as a step, a table read
// past its row, a padding score, a scale), and each fails on every seed with the kind beside its
// line at the bottom.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/paged_attention.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below: where a step's positions live in the caches,
// whether the table is read under the length's mask, the dead lanes' score and the scale.
enum class mistake { none, contiguous_cache, head_major_pages, table_unmasked, padding_1e4, scale_b1 };

// The row of the caches where each position of a step starts, [B0].
template <mistake M, class Positions, class Live>
TL_FN auto cache_rows(int t, const Positions& positions, const Live& live, int seq, int head,
                      tl::ptr<const int> block_table, int H, int D, int L, int PS) {
  if constexpr (M == mistake::contiguous_cache) {
    return ((seq * L * PS + positions) * H + head) * D;
  } else if constexpr (M == mistake::table_unmasked) {
    auto page = tl::load(block_table + seq * L + positions / PS);
    return ((page * PS + positions % PS) * H + head) * D;
  } else {
    auto page = tl::load(block_table + seq * L + positions / PS, live, 0);
    if constexpr (M == mistake::head_major_pages) return ((page * H + head) * PS + positions % PS) * D;
    else return ((page * PS + positions % PS) * H + head) * D;
  }
}

template <int B0, int B1, mistake M>
struct paged_attention_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k_cache,
                            tl::ptr<const float> v_cache, tl::ptr<const int> block_table,
                            tl::ptr<const int> seq_lens, tl::ptr<float> out, int S, int H, int D,
                            int L, int PS, int P) const {
    const int seq = tl::program_id(0), head = tl::program_id(1);
    const int length = tl::load(seq_lens + seq);
    auto dims = tl::arange<B1>();
    auto dim_mask = dims < D;
    const float scale = 1.0f / std::sqrt(static_cast<float>(M == mistake::scale_b1 ? B1 : D));
    auto query = tl::load(q + (seq * H + head) * D + dims, dim_mask, 0.0f) * scale;
    tl::tile<float> running_max = -INFINITY;
    tl::tile<float> running_sum = 0.0f;
    tl::tile<float, B1> acc = 0.0f;
    for (int t = 0; t < length; t += B0) {
      auto positions = t + tl::arange<B0>();
      auto live = positions < length;
      auto rows = cache_rows<M>(t, positions, live, seq, head, block_table, H, D, L, PS);
      auto mask = live.col() & dim_mask.row();
      auto keys = tl::load(k_cache + rows.col() + dims.row(), mask, 0.0f);
      auto values = tl::load(v_cache + rows.col() + dims.row(), mask, 0.0f);
      auto scores = tl::where(live, tl::sum<1>(keys * query.row()),
                              M == mistake::padding_1e4 ? -1e4f : -INFINITY);
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

}  // namespace

namespace wrong {

// The cache read as if each sequence's positions were contiguous from s * L * PS.
template <int B0, int B1>
using PagedAttentionContiguousCache = paged_attention_with<B0, B1, mistake::contiguous_cache>;
// Pages laid out head by head ([P, H, PS, D], as some engines keep them) instead of position by
// position ([P, PS, H, D]).
template <int B0, int B1>
using PagedAttentionHeadMajorPages = paged_attention_with<B0, B1, mistake::head_major_pages>;
// The block table read for every lane of the step, past the end of the last sequence's row.
template <int B0, int B1>
using PagedAttentionTableReadUnmasked = paged_attention_with<B0, B1, mistake::table_unmasked>;
// The dead lanes' score -1e4: above every real score of case 5.
template <int B0, int B1>
using PagedAttentionPaddingScore = paged_attention_with<B0, B1, mistake::padding_1e4>;
// The scale 1 / sqrt(B1), the lanes of a head, not its size D.
template <int B0, int B1>
using PagedAttentionScaledByTheBlock = paged_attention_with<B0, B1, mistake::scale_b1>;

}  // namespace wrong

namespace twin {

// The softmax in base 2 (exp2 of scores scaled by log2(e)), the normalization of the weights
// folded into a last multiplication by the reciprocal of their sum.
template <int B0, int B1>
struct PagedAttentionInBaseTwo {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k_cache,
                            tl::ptr<const float> v_cache, tl::ptr<const int> block_table,
                            tl::ptr<const int> seq_lens, tl::ptr<float> out, int S, int H, int D,
                            int L, int PS, int P) const {
    const int seq = tl::program_id(0), head = tl::program_id(1);
    const int length = tl::load(seq_lens + seq);
    auto dims = tl::arange<B1>();
    const float log2_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
    auto query = tl::load(q + (seq * H + head) * D + dims, dims < D, 0.0f);
    tl::tile<float> running_max = -INFINITY, running_sum = 0.0f;
    tl::tile<float, B1> acc = 0.0f;
    for (int t = 0; t < length; t += B0) {
      auto positions = t + tl::arange<B0>();
      auto live = positions < length;
      auto page = tl::load(block_table + seq * L + positions / PS, live, 0);
      auto rows = ((page * PS + positions % PS) * H + head) * D;
      auto mask = live.col() & (dims < D).row();
      auto scores = tl::sum<1>(tl::load(k_cache + rows.col() + dims.row(), mask, 0.0f) *
                               query.row()) * log2_scale;
      scores = tl::where(live, scores, -INFINITY);
      auto new_max = tl::maximum(running_max, tl::max(scores));
      auto weights = tl::exp2(scores - new_max);
      auto rescale = tl::exp2(running_max - new_max);
      acc = acc * rescale +
            tl::sum<0>(weights.col() * tl::load(v_cache + rows.col() + dims.row(), mask, 0.0f));
      running_sum = running_sum * rescale + tl::sum(weights);
      running_max = new_max;
    }
    tl::store(out + (seq * H + head) * D + dims, acc * (1.0f / running_sum), dims < D);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("paged attention");
TP_WRONG(PagedAttentionContiguousCache, paged_attention, "wrong-result", "");
TP_WRONG(PagedAttentionHeadMajorPages, paged_attention, "wrong-result", "");
TP_WRONG(PagedAttentionTableReadUnmasked, paged_attention, "out-of-bounds", "block_table");
TP_WRONG(PagedAttentionPaddingScore, paged_attention, "wrong-result", "");
TP_WRONG(PagedAttentionScaledByTheBlock, paged_attention, "wrong-result", "");
TP_TWIN(PagedAttentionInBaseTwo, paged_attention);
TP_CORPUS_TESTS("paged attention")
