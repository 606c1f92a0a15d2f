// The corpus (tests/corpus.hpp) for flash attention, conv2d and matmul: wrong kernels with the
// kind each must fail with on every seed, and correct twins written differently from the
// reference solutions (base 2, loops backwards, pointers advanced step by step).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "check_as_puzzle.hpp"
#include "checker/specs/conv2d.hpp"
#include "checker/specs/flash_attention_simple.hpp"
#include "checker/specs/matmul.hpp"
#include "corpus.hpp"
#include "solutions/matmul_fast.hpp"

namespace wrong {

// ---- flash-attention-simple ----

// The online softmax of the solution with choices a learner might make instead of its own.
enum class flash_bug {
  none, max_from_zero, no_rescale, up_to_1024, keys_masked_with_infinity, rescale_upside_down,
  max_from_minus_1e4, masked_with_minus_1e4, up_to_16384,
  lowest_float,  // not a bug: the lowest float as the initial maximum and the padding
};

template <int B0, int B1, flash_bug Bug>
void flash(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
           tl::ptr<float> z, int N0, int T) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto queries = tl::load(q + rows, rows < N0, 0.0f);
  constexpr float floor = Bug == flash_bug::max_from_zero        ? 0.0f
                          : Bug == flash_bug::max_from_minus_1e4 ? -1e4f
                          : Bug == flash_bug::lowest_float       ? std::numeric_limits<float>::lowest()
                                                                 : -INFINITY;
  constexpr float masked = Bug == flash_bug::masked_with_minus_1e4 ? -1e4f
                           : Bug == flash_bug::lowest_float        ? std::numeric_limits<float>::lowest()
                                                                   : -INFINITY;
  tl::tile<float, B0> row_max = tl::full<B0>(floor);
  tl::tile<float, B0> row_sum = 0.0f;
  tl::tile<float, B0> out = 0.0f;
  const int end = Bug == flash_bug::up_to_1024 && T > 1024     ? 1024
                  : Bug == flash_bug::up_to_16384 && T > 16384 ? 16384
                                                               : T;
  for (int j = 0; j < end; j += B1) {
    auto cols = j + tl::arange<B1>();
    auto col_mask = cols < T;
    auto values = tl::load(v + cols, col_mask, 0.0f);
    tl::tile<float, B0, B1> scores = 0.0f;
    if constexpr (Bug == flash_bug::keys_masked_with_infinity) {
      // -inf keys "give -inf scores", but only where the query is positive.
      scores = queries.col() * tl::load(k + cols, col_mask, -INFINITY).row();
    } else {
      scores = tl::where(col_mask.row(), queries.col() * tl::load(k + cols, col_mask, 0.0f).row(),
                         masked);
    }
    auto new_max = tl::maximum(row_max, tl::max<1>(scores));
    auto weights = tl::exp(scores - new_max.col());
    if constexpr (Bug == flash_bug::no_rescale) {
      row_sum = row_sum + tl::sum<1>(weights);
      out = out + tl::sum<1>(weights * values.row());
    } else {
      auto rescale = Bug == flash_bug::rescale_upside_down ? tl::exp(new_max - row_max)
                                                           : tl::exp(row_max - new_max);
      row_sum = row_sum * rescale + tl::sum<1>(weights);
      out = out * rescale + tl::sum<1>(weights * values.row());
    }
    row_max = new_max;
  }
  tl::store(z + rows, out / row_sum, rows < N0);
}

#define TP_FLASH_KERNEL(Name, bug)                                                             \
  template <int B0, int B1>                                                                    \
  struct Name {                                                                                \
    static constexpr int num_warps = 4;                                                        \
    TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,                  \
                              tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const { \
      wrong::flash<B0, B1, bug>(q, k, v, z, N0, T);                                            \
    }                                                                                          \
  };
// The running maximum starts at 0: "scores are positive anyway".
TP_FLASH_KERNEL(FlashAttentionMaxFromZero, flash_bug::max_from_zero)
// The running sum and output are never rescaled when the maximum grows.
TP_FLASH_KERNEL(FlashAttentionWithoutRescaling, flash_bug::no_rescale)
// Stops after 1024 keys.
TP_FLASH_KERNEL(FlashAttentionUpTo1024Keys, flash_bug::up_to_1024)
// Keys past T loaded as -inf instead of masking the scores: a negative query makes them +inf.
TP_FLASH_KERNEL(FlashAttentionKeysMaskedWithInfinity, flash_bug::keys_masked_with_infinity)
// The rescale factor upside down, exp(new - old): infinite while the old maximum is -inf, and the
// running sum (0) times it is NaN.
TP_FLASH_KERNEL(FlashAttentionRescaledUpsideDown, flash_bug::rescale_upside_down)
// Stops after 16384 keys, "a long context": only the large tier's 65539 keys show it.
TP_FLASH_KERNEL(FlashAttentionUpTo16384Keys, flash_bug::up_to_16384)
// The running maximum starts at -1e4, "below any real score": a query whose scores are all
// below it never raises it, and every exp underflows (0 / 0).
TP_FLASH_KERNEL(FlashAttentionMaxFromMinus1e4, flash_bug::max_from_minus_1e4)
// Masked keys score -1e4 instead of -inf: where every real score is below it, the masked keys
// (v loaded as 0) take all the weight.
TP_FLASH_KERNEL(FlashAttentionMaskedWithMinus1e4, flash_bug::masked_with_minus_1e4)

// ---- conv2d ----

// The filter's taps up to 8 x 8, "a filter is at most 8 wide": only the large tier's 11 x 9
// filter shows it.
template <int B0, int B1>
struct Conv2dFilterUpTo8x8 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto x_image = x + tl::program_id(2) * H * W;
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int a = 0; a < KH && a < 8; ++a) {
      for (int b = 0; b < KW && b < 8; ++b) {
        float weight = tl::load(k + a * KW + b);
        auto inside = (rows + a < H).col() & (cols + b < W).row();
        acc = acc + weight * tl::load(x_image + (rows + a).col() * W + (cols + b).row(), inside,
                                      0.0f);
      }
    }
    tl::store(z + tl::program_id(2) * H * W + rows.col() * W + cols.row(), acc,
              (rows < H).col() & (cols < W).row());
  }
};

// The filter's loops swapped: rows of taps up to KW, columns up to KH.
template <int B0, int B1>
struct Conv2dSwappedFilterLoops {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto x_image = x + tl::program_id(2) * H * W;
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int a = 0; a < KW; ++a) {
      for (int b = 0; b < KH; ++b) {
        float weight = tl::load(k + a * KW + b);
        auto inside = (rows + a < H).col() & (cols + b < W).row();
        acc = acc + weight * tl::load(x_image + (rows + a).col() * W + (cols + b).row(), inside,
                                      0.0f);
      }
    }
    tl::store(z + tl::program_id(2) * H * W + rows.col() * W + cols.row(), acc,
              (rows < H).col() & (cols < W).row());
  }
};

// Every program reads image 0.
template <int B0, int B1>
struct Conv2dWithoutTheImageOffset {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int a = 0; a < KH; ++a) {
      for (int b = 0; b < KW; ++b) {
        auto inside = (rows + a < H).col() & (cols + b < W).row();
        acc = acc + tl::load(k + a * KW + b) *
                        tl::load(x + (rows + a).col() * W + (cols + b).row(), inside, 0.0f);
      }
    }
    tl::store(z + tl::program_id(2) * H * W + rows.col() * W + cols.row(), acc,
              (rows < H).col() & (cols < W).row());
  }
};

// ---- matmul ----

enum class matmul_bug {
  no_accumulation, up_to_128, minus_infinity_other, unset_accumulator, up_to_8192
};

template <int B0, int B1, int B_MID, matmul_bug Bug>
void matmul(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0, int N1,
            int MID) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
  const int batch = tl::program_id(2);
  tl::tile<float, B0, B1> acc;
  if constexpr (Bug != matmul_bug::unset_accumulator) acc = 0.0f;
  const int end = Bug == matmul_bug::up_to_128 && MID > 128     ? 128
                  : Bug == matmul_bug::up_to_8192 && MID > 8192 ? 8192
                                                                : MID;
  constexpr float x_other = Bug == matmul_bug::minus_infinity_other ? -INFINITY : 0.0f;
  for (int k = 0; k < end; k += B_MID) {
    auto ks = k + tl::arange<B_MID>();
    auto a = tl::load(x + batch * N0 * MID + rows.col() * MID + ks.row(),
                      (rows < N0).col() & (ks < MID).row(), x_other);
    auto b = tl::load(y + batch * MID * N1 + ks.col() * N1 + cols.row(),
                      (ks < MID).col() & (cols < N1).row(), 0.0f);
    if constexpr (Bug == matmul_bug::no_accumulation) acc = tl::dot(a, b);
    else acc = tl::dot(a, b, acc);
  }
  tl::store(z + batch * N0 * N1 + rows.col() * N1 + cols.row(), acc,
            (rows < N0).col() & (cols < N1).row());
}

#define TP_MATMUL_KERNEL(Name, bug)                                                           \
  template <int B0, int B1, int B_MID>                                                        \
  struct Name {                                                                               \
    static constexpr int num_warps = 4;                                                       \
    TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, \
                              int N0, int N1, int N2, int MID) const {                        \
      matmul<B0, B1, B_MID, bug>(x, y, z, N0, N1, MID);                                       \
    }                                                                                         \
  };
// acc = dot(a, b): each step forgets the ones before.
TP_MATMUL_KERNEL(MatmulWithoutAccumulating, matmul_bug::no_accumulation)
// Stops after 128 steps along MID.
TP_MATMUL_KERNEL(MatmulUpTo128, matmul_bug::up_to_128)
// Stops at K = 8192, the benchmarks' largest: only the large tier's MID = 8195 shows it.
TP_MATMUL_KERNEL(MatmulUpTo8192, matmul_bug::up_to_8192)
// -inf as x's `other`, copied from a softmax: -inf times y's 0 is NaN.
TP_MATMUL_KERNEL(MatmulWithMinusInfinityOther, matmul_bug::minus_infinity_other)
// The accumulator declared without a value.
TP_MATMUL_KERNEL(MatmulFromAnUnsetAccumulator, matmul_bug::unset_accumulator)
#undef TP_MATMUL_KERNEL

}  // namespace wrong

namespace twin {

// The lowest float instead of -inf, as the initial maximum and the masked keys' score: below
// every finite score, so exp of it minus any real maximum is 0, as exp(-inf) is.
TP_FLASH_KERNEL(FlashAttentionFromTheLowestFloat, wrong::flash_bug::lowest_float)
#undef TP_FLASH_KERNEL

// Base 2: scores scaled by log2(e) once, exp2 everywhere.
template <int B0, int B1>
struct FlashAttentionInBase2 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto queries = tl::load(q + rows, rows < N0, 0.0f) * 1.4426950408889634f;
    tl::tile<float, B0> m = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l = 0.0f;
    tl::tile<float, B0> acc = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto keys = tl::load(k + cols, cols < T);
      auto scores = tl::where((cols < T).row(), queries.col() * keys.row(), -INFINITY);
      auto m_new = tl::maximum(m, tl::max<1>(scores));
      auto p = tl::exp2(scores - m_new.col());
      auto alpha = tl::exp2(m - m_new);
      l = l * alpha + tl::sum<1>(p);
      acc = acc * alpha + tl::sum<1>(p * tl::load(v + cols, cols < T, 0.0f).row());
      m = m_new;
    }
    tl::store(z + rows, acc / l, rows < N0);
  }
};

// The blocks of keys from the last to the first, through pointers that step back.
template <int B0, int B1>
struct FlashAttentionBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto queries = tl::load(q + rows, rows < N0, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    tl::tile<float, B0> out = 0.0f;
    int start = tl::cdiv(T, B1) * B1 - B1;
    tl::ptr<const float> k_block = k + start;
    tl::ptr<const float> v_block = v + start;
    for (; start >= 0; start -= B1) {
      auto lanes = tl::arange<B1>();
      auto real = lanes < T - start;
      auto scores = tl::where(real.row(), queries.col() * tl::load(k_block + lanes, real, 0.0f).row(),
                              -INFINITY);
      auto new_max = tl::maximum(tl::max<1>(scores), row_max);
      auto weights = tl::exp(scores - new_max.col());
      auto rescale = tl::exp(row_max - new_max);
      row_sum = tl::sum<1>(weights) + row_sum * rescale;
      out = tl::sum<1>(weights * tl::load(v_block + lanes, real, 0.0f).row()) + out * rescale;
      row_max = new_max;
      k_block = k_block - B1;
      v_block = v_block - B1;
    }
    tl::store(z + rows, out / row_sum, rows < N0);
  }
};

// Pointers advanced one filter row at a time; the taps of a row through a pointer to k's row.
template <int B0, int B1>
struct Conv2dAdvancingPointers {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    const int image = tl::program_id(2);
    tl::ptr<const float> x_row = x + image * H * W;
    tl::ptr<const float> k_row = k;
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int a = 0; a < KH; ++a) {
      auto row_inside = (rows + a < H).col();
      for (int b = 0; b < KW; ++b) {
        auto window = tl::load(x_row + rows.col() * W + (cols + b).row(),
                               row_inside & (cols + b < W).row());
        acc = tl::where(row_inside & (cols + b < W).row(), window * tl::load(k_row + b), 0.0f) +
              acc;
      }
      x_row = x_row + W;
      k_row = k_row + KW;
    }
    tl::store(z + image * H * W + rows.col() * W + cols.row(), acc,
              (rows < H).col() & (cols < W).row());
  }
};

// The Triton tutorial's form: tiles of pointers advanced by B_MID each step, masks from what is
// left of MID.
template <int B0, int B1, int B_MID>
struct MatmulAdvancingPointers {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto ks = tl::arange<B_MID>();
    const int batch = tl::program_id(2);
    tl::ptr<const float> x_step = x + batch * N0 * MID;
    tl::ptr<const float> y_step = y + batch * MID * N1;
    tl::tile<float, B0, B1> acc = tl::zeros<float, B0, B1>();
    for (int left = MID; left > 0; left -= B_MID) {
      auto a = tl::load(x_step + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < left).row(),
                        0.0f);
      auto b = tl::load(y_step + ks.col() * N1 + cols.row(), (ks < left).col() & (cols < N1).row(),
                        0.0f);
      acc += tl::dot(a, b);
      x_step = x_step + B_MID;
      y_step = y_step + B_MID * N1;
    }
    tl::store(z + batch * N0 * N1 + rows.col() * N1 + cols.row(), acc,
              (rows < N0).col() & (cols < N1).row());
  }
};

// MID from its last step to its first, the masked lanes cleaned with `where`.
template <int B0, int B1, int B_MID>
struct MatmulBackwardsOverMid {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    const int batch = tl::program_id(2);
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = tl::cdiv(MID, B_MID) * B_MID - B_MID; k >= 0; k -= B_MID) {
      auto ks = k + tl::arange<B_MID>();
      auto a_mask = (rows < N0).col() & (ks < MID).row();
      auto b_mask = (ks < MID).col() & (cols < N1).row();
      auto a = tl::where(a_mask, tl::load(x + batch * N0 * MID + rows.col() * MID + ks.row(), a_mask), 0.0f);
      auto b = tl::where(b_mask, tl::load(y + batch * MID * N1 + ks.col() * N1 + cols.row(), b_mask), 0.0f);
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + batch * N0 * N1 + rows.col() * N1 + cols.row(), acc,
              (rows < N0).col() & (cols < N1).row());
  }
};

// The fast variant of the solution (tensor descriptors in a pipelined range, grouped tiles),
// with float operands: held to the same spec as the solution. (On the GPU its fp16 and bf16
// forms run in tilepuzzles bench matmul, checked against a product in double.)
template <int B0, int B1, int B_MID>
using MatmulFastDescriptors = solutions::MatmulFast<float, B0, B1, B_MID>;

}  // namespace twin

TP_CORPUS_GROUP("tiles");
TP_WRONG(FlashAttentionMaxFromZero, flash_attention_simple, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(FlashAttentionWithoutRescaling, flash_attention_simple, "wrong-result", "");
TP_WRONG(FlashAttentionUpTo1024Keys, flash_attention_simple, "wrong-result", "4099");
TP_WRONG(FlashAttentionRescaledUpsideDown, flash_attention_simple, "nan-inf",
         "the first NaN is 0 * inf");
TP_WRONG(FlashAttentionUpTo16384Keys, flash_attention_simple, "wrong-result", "T=65539");
TP_WRONG(FlashAttentionMaxFromMinus1e4, flash_attention_simple, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(FlashAttentionMaskedWithMinus1e4, flash_attention_simple, "wrong-result", "-25500");
TP_WRONG(FlashAttentionKeysMaskedWithInfinity, flash_attention_simple, "nan-inf",
         "The infinity comes from -inf in a masked load's `other`");
TP_WRONG(Conv2dSwappedFilterLoops, conv2d, "out-of-bounds", "");
TP_WRONG(Conv2dWithoutTheImageOffset, conv2d, "wrong-result", "");
TP_WRONG(Conv2dFilterUpTo8x8, conv2d, "wrong-result", "KH=11, KW=9");
TP_WRONG(MatmulWithoutAccumulating, matmul, "wrong-result", "");
TP_WRONG(MatmulUpTo128, matmul, "wrong-result", "MID=131");
TP_WRONG(MatmulUpTo8192, matmul, "wrong-result", "MID=8195");
TP_WRONG(MatmulWithMinusInfinityOther, matmul, "nan-inf",
         "The infinity comes from -inf in a masked load's `other`");
TP_WRONG(MatmulFromAnUnsetAccumulator, matmul, "poison-store",
         "The poison comes from a tl::tile declared without a value");
TP_TWIN(FlashAttentionInBase2, flash_attention_simple);
TP_TWIN(FlashAttentionFromTheLowestFloat, flash_attention_simple);
TP_TWIN(FlashAttentionBackwards, flash_attention_simple);
TP_TWIN(Conv2dAdvancingPointers, conv2d);
TP_TWIN(MatmulAdvancingPointers, matmul);
TP_TWIN(MatmulBackwardsOverMid, matmul);
TP_TWIN(MatmulFastDescriptors, matmul);
TP_CORPUS_TESTS("tiles")
