// The corpus (tests/corpus.hpp) for the norms of volume 2 (17 rms-norm, 18 layer-norm); the losses
// that follow them (19 softmax-backward, 20 cross-entropy) are in tests/corpus_losses.cpp. Most of
// these wrong kernels pass on inputs that are too kind; the puzzles' cases against them (rows of
// small values, rows of zeros, rows far from zero) make them fail on every seed.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/layer_norm.hpp"
#include "checker/specs/rms_norm.hpp"
#include "corpus.hpp"

namespace wrong {

// ---- rms-norm ----

// What the rms-norm kernels below share, the part they get right (the second pass), so that each
// shows its bug in the first.
template <int B0, int B1, class Rows, class Rstd>
void store_rms_normalized(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                          const Rows& rows, int N0, int D, const Rstd& rstd) {
  for (int j = 0; j < D; j += B1) {
    auto cols = j + tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < D).row();
    auto block = tl::load(x + rows.col() * D + cols.row(), mask);
    tl::store(y + rows.col() * D + cols.row(),
              block * rstd.col() * tl::load(w + cols, cols < D).row(), mask);
  }
}

// No eps: "the mean of squares is never 0". A row of zeros is 0 * rsqrt(0) = 0 * inf.
template <int B0, int B1>
struct RmsNormWithoutEps {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      sum_sq += tl::sum<1>(block * block);
    }
    store_rms_normalized<B0, B1>(x, w, y, rows, N0, D, tl::rsqrt(sum_sq / D));
  }
};

// eps added to the sum of squares before the division by D: the same where eps hardly shows, not
// where it sets the scale (rows of small values).
template <int B0, int B1>
struct RmsNormEpsOnTheSum {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      sum_sq += tl::sum<1>(block * block);
    }
    store_rms_normalized<B0, B1>(x, w, y, rows, N0, D, tl::rsqrt((sum_sq + 1e-5f) / D));
  }
};

// The mean over every lane the loop walked, padding included: cdiv(D, B1) * B1 instead of D.
template <int B0, int B1>
struct RmsNormMeanOverThePaddedRow {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    int lanes = 0;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      sum_sq += tl::sum<1>(block * block);
      lanes += B1;
    }
    store_rms_normalized<B0, B1>(x, w, y, rows, N0, D, tl::rsqrt(sum_sq / lanes + 1e-5f));
  }
};

// x squared as two loads, "x times x": the sum of squares reads x twice, the second pass once
// more.
template <int B0, int B1>
struct RmsNormSquaringTwoLoads {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto ptrs = x + rows.col() * D + cols.row();
      auto mask = (rows < N0).col() & (cols < D).row();
      sum_sq += tl::sum<1>(tl::load(ptrs, mask, 0.0f) * tl::load(ptrs, mask, 0.0f));
    }
    store_rms_normalized<B0, B1>(x, w, y, rows, N0, D, tl::rsqrt(sum_sq / D + 1e-5f));
  }
};

// The weight loaded under the rows' mask only: past D its lanes read beyond w.
template <int B0, int B1>
struct RmsNormWeightWithoutItsMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      sum_sq += tl::sum<1>(block * block);
    }
    auto rstd = tl::rsqrt(sum_sq / D + 1e-5f);
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask);
      auto weight = tl::load(w + cols);
      tl::store(y + rows.col() * D + cols.row(), block * rstd.col() * weight.row(), mask);
    }
  }
};

// ---- layer-norm ----

// The second pass every layer-norm kernel below shares, with each row's mean and rstd stored.
template <int B0, int B1, class Rows, class Mean, class Rstd>
void store_layer_normalized(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, const Rows& rows, int N0, int D,
                            const Mean& row_mean, const Rstd& row_rstd) {
  tl::store(mean + rows, row_mean, rows < N0);
  tl::store(rstd + rows, row_rstd, rows < N0);
  for (int j = 0; j < D; j += B1) {
    auto cols = j + tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < D).row();
    auto block = tl::load(x + rows.col() * D + cols.row(), mask);
    auto normalized = (block - row_mean.col()) * row_rstd.col();
    tl::store(y + rows.col() * D + cols.row(),
              normalized * tl::load(w + cols, cols < D).row() + tl::load(b + cols, cols < D).row(),
              mask);
  }
}

// The variance as the mean of the squares minus the square of the mean, both sums in one pass:
// right on paper, and in float for rows near zero; rows about 100 lose it to rounding.
template <int B0, int B1>
struct LayerNormFromSumOfSquares {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum = 0.0f, sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      sum += tl::sum<1>(block);
      sum_sq += tl::sum<1>(block * block);
    }
    auto row_mean = sum / D;
    auto row_rstd = tl::rsqrt(sum_sq / D - row_mean * row_mean + 1e-5f);
    store_layer_normalized<B0, B1>(x, w, b, y, mean, rstd, rows, N0, D, row_mean, row_rstd);
  }
};

// Triton's layer-norm tutorial: one pass for the mean, one for the variance, one for y. Right,
// and x is read three times.
template <int B0, int B1>
struct LayerNormInThreePasses {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      sum += tl::sum<1>(tl::load(x + rows.col() * D + cols.row(),
                                 (rows < N0).col() & (cols < D).row(), 0.0f));
    }
    auto row_mean = sum / D;
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto centered = tl::where(mask, tl::load(x + rows.col() * D + cols.row(), mask) -
                                          row_mean.col(), 0.0f);
      sum_sq += tl::sum<1>(centered * centered);
    }
    auto row_rstd = tl::rsqrt(sum_sq / D + 1e-5f);
    store_layer_normalized<B0, B1>(x, w, b, y, mean, rstd, rows, N0, D, row_mean, row_rstd);
  }
};

// Chan's merge with every block counted as B1 columns, the ragged last one too: its mean is
// divided by B1, and its padding, 0 - mean, enters m2.
template <int B0, int B1>
struct LayerNormCountingFullBlocks {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_mean = 0.0f, row_m2 = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * D + cols.row(),
                            (rows < N0).col() & (cols < D).row(), 0.0f);
      auto block_mean = tl::sum<1>(block) / B1;
      auto centered = block - block_mean.col();
      auto delta = block_mean - row_mean;
      const float share = static_cast<float>(B1) / static_cast<float>(j + B1);
      row_mean += delta * share;
      row_m2 += tl::sum<1>(centered * centered) + delta * delta * (static_cast<float>(j) * share);
    }
    auto row_rstd = tl::rsqrt(row_m2 / D + 1e-5f);
    store_layer_normalized<B0, B1>(x, w, b, y, mean, rstd, rows, N0, D, row_mean, row_rstd);
  }
};

// The unbiased variance, m2 / (D - 1), as torch.var computes by default: layer norm's is m2 / D.
// A row of one element divides 0 by 0.
template <int B0, int B1>
struct LayerNormUnbiasedVariance {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_mean = 0.0f, row_m2 = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask, 0.0f);
      const int n = D - j < B1 ? D - j : B1;
      auto block_mean = tl::sum<1>(block) / n;
      auto centered = tl::where(mask, block - block_mean.col(), 0.0f);
      auto delta = block_mean - row_mean;
      const float share = static_cast<float>(n) / static_cast<float>(j + n);
      row_mean += delta * share;
      row_m2 += tl::sum<1>(centered * centered) + delta * delta * (static_cast<float>(j) * share);
    }
    auto row_rstd = tl::rsqrt(row_m2 / (D - 1) + 1e-5f);
    store_layer_normalized<B0, B1>(x, w, b, y, mean, rstd, rows, N0, D, row_mean, row_rstd);
  }
};

// mean and rstd stored under no mask: the rows of the last program past N0 write past the end.
template <int B0, int B1>
struct LayerNormStatisticsWithoutTheRowMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_mean = 0.0f, row_m2 = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask, 0.0f);
      const int n = D - j < B1 ? D - j : B1;
      auto block_mean = tl::sum<1>(block) / n;
      auto centered = tl::where(mask, block - block_mean.col(), 0.0f);
      auto delta = block_mean - row_mean;
      const float share = static_cast<float>(n) / static_cast<float>(j + n);
      row_mean += delta * share;
      row_m2 += tl::sum<1>(centered * centered) + delta * delta * (static_cast<float>(j) * share);
    }
    auto row_rstd = tl::rsqrt(row_m2 / D + 1e-5f);
    tl::store(mean + rows, row_mean);
    tl::store(rstd + rows, row_rstd);
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask);
      tl::store(y + rows.col() * D + cols.row(),
                (block - row_mean.col()) * row_rstd.col() * tl::load(w + cols, cols < D).row() +
                    tl::load(b + cols, cols < D).row(),
                mask);
    }
  }
};

}  // namespace wrong

namespace twin {

// ---- rms-norm ----

// Divides by the root mean square instead of multiplying by its inverse, cleans the padding with
// `where`, and walks the second pass from the last block to the first.
template <int B0, int B1>
struct RmsNormDividingBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::where(mask, tl::load(x + rows.col() * D + cols.row(), mask), 0.0f);
      sum_sq += tl::sum<1>(block * block);
    }
    auto rms = tl::sqrt(sum_sq / static_cast<float>(D) + 1e-5f);
    for (int j = tl::cdiv(D, B1) * B1 - B1; j >= 0; j -= B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask);
      auto weight = tl::load(w + cols, cols < D, 0.0f);
      tl::store(y + rows.col() * D + cols.row(), block / rms.col() * weight.row(), mask);
    }
  }
};

// ---- layer-norm ----

// Chan's merge over running sums instead of running means: the row's sum so far, and its m2;
// the mean of the blocks before is sum / j.
template <int B0, int B1>
struct LayerNormMergingSums {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    tl::tile<float, B0> row_sum = 0.0f, row_m2 = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto block = tl::where(mask, tl::load(x + rows.col() * D + cols.row(), mask), 0.0f);
      const float seen = static_cast<float>(j);
      const float n = static_cast<float>(D - j < B1 ? D - j : B1);
      auto block_sum = tl::sum<1>(block);
      auto block_mean = block_sum / n;
      auto centered = tl::where(mask, block - block_mean.col(), 0.0f);
      // j == 0: nothing seen before, and the merge term is 0 (its mean_before is 0 / 1).
      auto delta = block_mean - row_sum / (j == 0 ? 1.0f : seen);
      row_m2 += tl::sum<1>(centered * centered) + delta * delta * (seen * n / (seen + n));
      row_sum += block_sum;
    }
    auto row_mean = row_sum / static_cast<float>(D);
    auto row_rstd = 1.0f / tl::sqrt(row_m2 / static_cast<float>(D) + 1e-5f);
    tl::store(mean + rows, row_mean, row_mask);
    tl::store(rstd + rows, row_rstd, row_mask);
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto x_hat = (tl::load(x + rows.col() * D + cols.row(), mask) - row_mean.col()) *
                   row_rstd.col();
      tl::store(y + rows.col() * D + cols.row(),
                tl::fma(x_hat, tl::load(w + cols, cols < D).row(), tl::load(b + cols, cols < D).row()),
                mask);
    }
  }
};

}  // namespace twin

TP_CORPUS_GROUP("norms");
TP_WRONG(RmsNormWithoutEps, rms_norm, "nan-inf", "");
TP_WRONG(RmsNormEpsOnTheSum, rms_norm, "wrong-result", "about 1e-3");
TP_WRONG(RmsNormMeanOverThePaddedRow, rms_norm, "wrong-result", "");
TP_WRONG(RmsNormSquaringTwoLoads, rms_norm, "efficiency-budget", "at most 2 allowed");
TP_WRONG(RmsNormWeightWithoutItsMask, rms_norm, "out-of-bounds", "loads from w outside");
TP_WRONG(LayerNormFromSumOfSquares, layer_norm, "wrong-result", "about +100");
TP_WRONG(LayerNormInThreePasses, layer_norm, "efficiency-budget", "at most 2 allowed");
TP_WRONG(LayerNormCountingFullBlocks, layer_norm, "wrong-result", "");
TP_WRONG(LayerNormUnbiasedVariance, layer_norm, "nan-inf", "");
TP_WRONG_FIRST_CONFIGS(LayerNormStatisticsWithoutTheRowMask, layer_norm, 2, "out-of-bounds",
                       "stores to mean outside");
TP_TWIN(RmsNormDividingBackwards, rms_norm);
TP_TWIN(LayerNormMergingSums, layer_norm);
TP_CORPUS_TESTS("norms")

