// The corpus (tests/corpus.hpp) for puzzles 15 (matmul-int4) and 16 (flash-attention): the
// mistakes of unpacking 4-bit weights, and of an online softmax over blocks of keys. Several pass
// on inputs that are too kind; the puzzles' cases against them (MID past 1024, a maximum score in
// the last block of keys, every score of a query far from zero) make them fail on every seed.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "check_as_puzzle.hpp"
#include "checker/specs/flash_attention.hpp"
#include "checker/specs/matmul_int4.hpp"
#include "corpus.hpp"
#include "solutions/flash_attention_pipelined.hpp"

namespace wrong {

// ---- matmul-int4 ----

// What a matmul-int4 kernel can get wrong, one at a time; `none` is the reference kernel.
enum class int4_mistake {
  none,
  high_nibble_first,        // value j of a word taken from bits 28 - 4j, not 4j
  zero_point_left_out,      // scale * w instead of scale * (w - zero)
  scale_group_as_zero_word, // the scale's group counted like the zero point's words: k / 64
  k_up_to_256,              // "MID is never more than 256"
  byte_steps,               // 8 bits between values: the shifts reach 32 and beyond
};

template <int4_mistake Bug>
struct Int4Mistake {
  template <int B0, int B1, int B_MID>
  struct Kernel {
    static constexpr int num_warps = 4;
    static constexpr int FPINT = 8;
    static constexpr int GROUP = 8;

    template <class Packed>
    static auto unpack(const Packed& packed) {
      auto j = tl::arange<FPINT>();
      if constexpr (Bug == int4_mistake::high_nibble_first)
        return (tl::expand_dims<2>(packed) >> ((FPINT - 1 - j) * 4)) & 0xF;
      else if constexpr (Bug == int4_mistake::byte_steps)
        return (tl::expand_dims<2>(packed) >> (j * 8)) & 0xF;
      else
        return (tl::expand_dims<2>(packed) >> (j * 4)) & 0xF;
    }

    TL_KERNEL void operator()(tl::ptr<const float> scale, tl::ptr<const int> zero,
                              tl::ptr<const int> weight, tl::ptr<const float> activation,
                              tl::ptr<float> z, int N0, int N1, int MID) const {
      constexpr int GROUPS = B_MID / GROUP;
      constexpr int ZERO_WORDS = GROUPS / FPINT;
      auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
      auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
      auto row_mask = rows < N0;
      const int k_end = Bug == int4_mistake::k_up_to_256 && MID > 256 ? 256 : MID;
      tl::tile<float, B0, B1> acc = 0.0f;
      for (int k = 0; k < k_end; k += B_MID) {
        auto groups = k / GROUP + tl::arange<GROUPS>();
        auto group_mask = row_mask.col() & (groups < MID / GROUP).row();
        auto packed = tl::load(weight + rows.col() * (MID / FPINT) + groups.row(), group_mask, 0);
        auto scale_groups = (Bug == int4_mistake::scale_group_as_zero_word ? k / (GROUP * FPINT)
                                                                        : k / GROUP) +
                            tl::arange<GROUPS>();
        auto scales = tl::load(scale + rows.col() * (MID / GROUP) + scale_groups.row(),
                               group_mask, 0.0f);
        auto words = k / (GROUP * FPINT) + tl::arange<ZERO_WORDS>();
        auto zero_words = tl::load(zero + rows.col() * (MID / (GROUP * FPINT)) + words.row(),
                                   row_mask.col() & (words < MID / (GROUP * FPINT)).row(), 0);
        auto zeros = tl::reshape<B0, GROUPS>(unpack(zero_words));
        tl::tile<float, B0, GROUPS, GROUP> weights = 0.0f;
        if constexpr (Bug == int4_mistake::zero_point_left_out)
          weights = tl::expand_dims<2>(scales) * tl::cast<float>(unpack(packed));
        else
          weights = tl::expand_dims<2>(scales) *
                    tl::cast<float>(unpack(packed) - tl::expand_dims<2>(zeros));
        auto ks = k + tl::arange<B_MID>();
        auto a = tl::load(activation + ks.col() * N1 + cols.row(),
                          (ks < MID).col() & (cols < N1).row(), 0.0f);
        acc = tl::dot(tl::reshape<B0, B_MID>(weights), a, acc);
      }
      tl::store(z + rows.col() * N1 + cols.row(), acc, row_mask.col() & (cols < N1).row());
    }
  };
};

template <int B0, int B1, int B_MID>
using Int4HighNibbleFirst = Int4Mistake<int4_mistake::high_nibble_first>::Kernel<B0, B1, B_MID>;
template <int B0, int B1, int B_MID>
using Int4WithoutZeroPoint = Int4Mistake<int4_mistake::zero_point_left_out>::Kernel<B0, B1, B_MID>;
template <int B0, int B1, int B_MID>
using Int4ScaleOfTheWrongGroup =
    Int4Mistake<int4_mistake::scale_group_as_zero_word>::Kernel<B0, B1, B_MID>;
template <int B0, int B1, int B_MID>
using Int4KUpTo256 = Int4Mistake<int4_mistake::k_up_to_256>::Kernel<B0, B1, B_MID>;
template <int B0, int B1, int B_MID>
using Int4ByteSteps = Int4Mistake<int4_mistake::byte_steps>::Kernel<B0, B1, B_MID>;

// ---- flash-attention ----

// What an online-softmax attention kernel can get wrong, one at a time.
enum class attention_mistake {
  max_from_zero,         // m_i starts at 0: "scores are mostly positive anyway"
  acc_not_rescaled,      // acc += p @ v without acc * alpha
  sum_not_rescaled,      // l_i += sum(p) without l_i * alpha
  causal_off_by_one,     // a query sees the keys before it, not itself
  no_sqrt_d,             // exp2(q k * log2(e)) without the 1/sqrt(d)
  minus_inf_keys,        // masked keys loaded as -inf so that they score -inf: q * -inf
  keys_up_to_1024,       // the loop over keys stops at 1024: "contexts are short"
  max_from_minus_1e4,    // m_i starts at -1e4: "below any real score"
  masked_with_minus_1e4, // masked and causal keys score -1e4, the float16 habit
  lowest_float,          // not a mistake: the lowest float as m_i's start and the masked score
};

template <attention_mistake Bug>
struct AttentionMistake {
  template <class T, int B0, int B1, int D>
  struct Kernel {
    static constexpr int num_warps = 4;
    TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                              tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
      int start_m = tl::program_id(0) * B0;
      int head_offset = tl::program_id(1) * N * D;
      auto rows = start_m + tl::arange<B0>();
      auto dims = tl::arange<D>();
      auto row_mask = rows < N;
      const float qk_scale = Bug == attention_mistake::no_sqrt_d
                                 ? 1.44269504f
                                 : 1.44269504f / std::sqrt(static_cast<float>(D));
      auto queries = tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
      constexpr float lowest = std::numeric_limits<float>::lowest();
      constexpr float floor = Bug == attention_mistake::max_from_zero        ? 0.0f
                              : Bug == attention_mistake::max_from_minus_1e4 ? -1e4f
                              : Bug == attention_mistake::lowest_float       ? lowest
                                                                             : -INFINITY;
      constexpr float masked = Bug == attention_mistake::masked_with_minus_1e4 ? -1e4f
                               : Bug == attention_mistake::lowest_float        ? lowest
                                                                               : -INFINITY;
      tl::tile<float, B0> m_i = tl::full<B0>(floor);
      tl::tile<float, B0> l_i = 0.0f;
      tl::tile<float, B0, D> acc = 0.0f;
      const int end = Bug == attention_mistake::keys_up_to_1024 && N > 1024 ? 1024 : N;
      for (int start_n = 0; start_n < end; start_n += B1) {
        auto cols = start_n + tl::arange<B1>();
        auto col_mask = cols < N;
        const float key_other = Bug == attention_mistake::minus_inf_keys ? -INFINITY : 0.0f;
        auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), col_mask.row(),
                               key_other);
        auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
        tl::tile<float, B0, B1> scores = tl::dot(queries, keys_t) * qk_scale;
        if constexpr (Bug == attention_mistake::causal_off_by_one)
          scores = tl::where(col_mask.row() & ((cols.row() < rows.col()) | (CAUSAL == 0)), scores,
                             -INFINITY);
        else if constexpr (Bug == attention_mistake::minus_inf_keys)
          scores = tl::where((cols.row() <= rows.col()) | (CAUSAL == 0), scores, -INFINITY);
        else
          scores = tl::where(col_mask.row() & ((cols.row() <= rows.col()) | (CAUSAL == 0)),
                             scores, masked);
        auto m_new = tl::maximum(m_i, tl::max<1>(scores));
        auto p = tl::exp2(scores - m_new.col());
        auto alpha = tl::exp2(m_i - m_new);
        if constexpr (Bug == attention_mistake::sum_not_rescaled) l_i = l_i + tl::sum<1>(p);
        else l_i = l_i * alpha + tl::sum<1>(p);
        if constexpr (Bug == attention_mistake::acc_not_rescaled) acc = tl::dot(tl::cast<T>(p), values, acc);
        else acc = tl::dot(tl::cast<T>(p), values, acc * alpha.col());
        m_i = m_new;
      }
      tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
                row_mask.col());
    }
  };
};

template <class T, int B0, int B1, int D>
using AttentionMaxFromZero = AttentionMistake<attention_mistake::max_from_zero>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionAccNotRescaled =
    AttentionMistake<attention_mistake::acc_not_rescaled>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionSumNotRescaled =
    AttentionMistake<attention_mistake::sum_not_rescaled>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionCausalOffByOne =
    AttentionMistake<attention_mistake::causal_off_by_one>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionWithoutSqrtD = AttentionMistake<attention_mistake::no_sqrt_d>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionMinusInfinityKeys =
    AttentionMistake<attention_mistake::minus_inf_keys>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionKeysUpTo1024 =
    AttentionMistake<attention_mistake::keys_up_to_1024>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionMaxFromMinus1e4 =
    AttentionMistake<attention_mistake::max_from_minus_1e4>::Kernel<T, B0, B1, D>;
template <class T, int B0, int B1, int D>
using AttentionMaskedWithMinus1e4 =
    AttentionMistake<attention_mistake::masked_with_minus_1e4>::Kernel<T, B0, B1, D>;

}  // namespace wrong

namespace twin {

// The lowest float instead of -inf, as m_i's start and the masked and causal keys' score: below
// every finite score, so exp2 of it minus any real maximum is 0, as exp2(-inf) is.
template <class T, int B0, int B1, int D>
using AttentionFromTheLowestFloat =
    wrong::AttentionMistake<wrong::attention_mistake::lowest_float>::Kernel<T, B0, B1, D>;

// The k loop from its last step to its first, the zero point subtracted after scaling
// (scale * w - scale * zero), and the masked lanes cleaned with `where` instead of `other`.
template <int B0, int B1, int B_MID>
struct Int4BackwardsScaleFirst {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> scale, tl::ptr<const int> zero,
                            tl::ptr<const int> weight, tl::ptr<const float> activation,
                            tl::ptr<float> z, int N0, int N1, int MID) const {
    constexpr int GROUPS = B_MID / 8;
    const int groups_per_row = MID / 8, words_per_row = MID / 64;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto nibble = tl::arange<8>() * 4;
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = tl::cdiv(MID, B_MID) * B_MID - B_MID; k >= 0; k -= B_MID) {
      auto groups = k / 8 + tl::arange<GROUPS>();
      auto mask = (rows < N0).col() & (groups < groups_per_row).row();
      auto packed = tl::where(mask, tl::load(weight + rows.col() * groups_per_row + groups.row(),
                                             mask), 0);
      auto scales = tl::where(mask, tl::load(scale + rows.col() * groups_per_row + groups.row(),
                                             mask), 0.0f);
      auto words = k / 64 + tl::arange<GROUPS / 8>();
      auto word_mask = (rows < N0).col() & (words < words_per_row).row();
      auto zero_words = tl::where(word_mask,
                                  tl::load(zero + rows.col() * words_per_row + words.row(),
                                           word_mask), 0);
      auto zeros = tl::reshape<B0, GROUPS>((tl::expand_dims<2>(zero_words) >> nibble) & 15);
      auto values = (tl::expand_dims<2>(packed) >> nibble) & 15;
      auto scaled = tl::expand_dims<2>(scales) * tl::cast<float>(values) -
                    tl::expand_dims<2>(scales * tl::cast<float>(zeros));
      auto ks = k + tl::arange<B_MID>();
      auto a_mask = (ks < MID).col() & (cols < N1).row();
      auto a = tl::where(a_mask, tl::load(activation + ks.col() * N1 + cols.row(), a_mask), 0.0f);
      acc += tl::dot(tl::reshape<B0, B_MID>(scaled), a);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

// Natural exp with the 1/sqrt(d) scale (no log2(e)), pointers advanced along the keys, and every
// block of keys visited even when causal (the mask alone hides the future).
template <class T, int B0, int B1, int D>
struct AttentionInBaseEWithPointers {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
    const int head_offset = tl::program_id(1) * N * D;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto dims = tl::arange<D>();
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto queries = tl::load(q + head_offset + rows.col() * D + dims.row(), (rows < N).col(), 0.0f);
    tl::ptr<const T> k_block = k + head_offset;
    tl::ptr<const T> v_block = v + head_offset;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    tl::tile<float, B0, D> out = 0.0f;
    for (int start_n = 0; start_n < N; start_n += B1) {
      auto keys = tl::arange<B1>();
      auto cols = start_n + keys;
      auto keys_t = tl::load(k_block + keys.row() * D + dims.col(), (cols < N).row(), 0.0f);
      auto values = tl::load(v_block + keys.col() * D + dims.row(), (cols < N).col(), 0.0f);
      auto seen = (cols < N).row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      auto scores = tl::where(seen, tl::dot(queries, keys_t) * scale, -INFINITY);
      auto new_max = tl::maximum(tl::max<1>(scores), row_max);
      auto correction = tl::exp(row_max - new_max);
      auto p = tl::exp(scores - new_max.col());
      row_sum = tl::sum<1>(p) + correction * row_sum;
      out = tl::dot(tl::cast<T>(p), values, correction.col() * out);
      row_max = new_max;
      k_block = k_block + B1 * D;
      v_block = v_block + B1 * D;
    }
    tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(out / row_sum.col()),
              (rows < N).col());
  }
};

// The fast variant of the solution (its loop over keys a pipelined range, k loaded as it lies
// with no `other`): held to the same spec as the solution.
template <class T, int B0, int B1, int D>
using AttentionPipelined = solutions::FlashAttentionPipelined<T, B0, B1, D>;

}  // namespace twin

TP_CORPUS_GROUP("quantized and attention");
TP_WRONG(Int4HighNibbleFirst, matmul_int4, "wrong-result", "");
TP_WRONG(Int4WithoutZeroPoint, matmul_int4, "wrong-result", "");
TP_WRONG(Int4ScaleOfTheWrongGroup, matmul_int4, "wrong-result", "MID=128");
TP_WRONG(Int4KUpTo256, matmul_int4, "wrong-result", "MID = 1088");
TP_WRONG(Int4ByteSteps, matmul_int4, "index-overflow", "shifts an int32 by 32");
TP_TWIN(Int4BackwardsScaleFirst, matmul_int4);
TP_WRONG_TYPED(AttentionMaxFromZero, flash_attention, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG_TYPED(AttentionAccNotRescaled, flash_attention, "wrong-result", "");
TP_WRONG_TYPED(AttentionSumNotRescaled, flash_attention, "wrong-result", "");
TP_WRONG_TYPED(AttentionCausalOffByOne, flash_attention, "nan-inf", "");
TP_WRONG_TYPED(AttentionWithoutSqrtD, flash_attention, "wrong-result", "");
TP_WRONG_TYPED(AttentionMinusInfinityKeys, flash_attention, "nan-inf", "");
TP_WRONG_TYPED(AttentionKeysUpTo1024, flash_attention, "wrong-result", "N=1027");
TP_WRONG_TYPED(AttentionMaxFromMinus1e4, flash_attention, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG_TYPED(AttentionMaskedWithMinus1e4, flash_attention, "wrong-result",
               "all far below zero");
TP_TWIN_TYPED(AttentionInBaseEWithPointers, flash_attention);
TP_TWIN_TYPED(AttentionFromTheLowestFloat, flash_attention);
TP_TWIN_TYPED(AttentionPipelined, flash_attention);
TP_CORPUS_TESTS("quantized and attention")
