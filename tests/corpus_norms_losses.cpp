// The corpus (tests/corpus.hpp) for the first puzzles of volume 2: the norms (17 rms-norm, 18
// layer-norm) and the losses (19 softmax-backward, 20 cross-entropy). Most of these wrong kernels
// pass on inputs that are too kind; the puzzles' cases against them (rows of small values, rows
// of zeros, rows far from zero, ignored targets) make them fail on every seed.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
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

}  // namespace twin

TP_CORPUS_GROUP("norms");
TP_WRONG(RmsNormWithoutEps, rms_norm, "nan-inf", "");
TP_WRONG(RmsNormEpsOnTheSum, rms_norm, "wrong-result", "about 1e-3");
TP_WRONG(RmsNormMeanOverThePaddedRow, rms_norm, "wrong-result", "");
TP_WRONG(RmsNormSquaringTwoLoads, rms_norm, "efficiency-budget", "at most 2 allowed");
TP_WRONG(RmsNormWeightWithoutItsMask, rms_norm, "out-of-bounds", "loads from w outside");
TP_TWIN(RmsNormDividingBackwards, rms_norm);
TP_CORPUS_TESTS("norms")
