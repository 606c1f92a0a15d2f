// The corpus (tests/corpus.hpp) for the transformer pieces of volume 2: 21 rope, 22 swiglu,
// 23 embedding, 24 layer-norm-backward. Each wrong kernel below is a mistake that reads as right
// (a convention, a sign, a bound, a mask), and each fails on every seed with the kind beside its
// line at the bottom.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/embedding.hpp"
#include "checker/specs/layer_norm_backward.hpp"
#include "checker/specs/rope.hpp"
#include "checker/specs/swiglu.hpp"
#include "corpus.hpp"

namespace wrong {

// ---- rope ----

// The interleaved convention of the RoFormer paper, pairs (x[2i], x[2i + 1]): a rotation of
// other pairs than the half-split one the puzzle asks for.
template <int B0, int B1>
struct RopeInterleaved {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    const int half = D / 2;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int i = 0; i < half; i += B1) {
      auto pairs = i + tl::arange<B1>();
      auto mask = (rows < N0).col() & (pairs < half).row();
      auto even = rows.col() * D + 2 * pairs.row();
      auto table = rows.col() * half + pairs.row();
      auto x1 = tl::load(x + even, mask), x2 = tl::load(x + even + 1, mask);
      auto c = tl::load(cos + table, mask), s = tl::load(sin + table, mask);
      tl::store(y + even, x1 * c - x2 * s, mask);
      tl::store(y + even + 1, x2 * c + x1 * s, mask);
    }
  }
};

// The rotation the other way round (by -theta): right at position 0, wrong at every other.
template <int B0, int B1>
struct RopeRotatedBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    const int half = D / 2;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int i = 0; i < half; i += B1) {
      auto pairs = i + tl::arange<B1>();
      auto mask = (rows < N0).col() & (pairs < half).row();
      auto first = rows.col() * D + pairs.row();
      auto table = rows.col() * half + pairs.row();
      auto x1 = tl::load(x + first, mask), x2 = tl::load(x + first + half, mask);
      auto c = tl::load(cos + table, mask), s = tl::load(sin + table, mask);
      tl::store(y + first, x1 * c + x2 * s, mask);
      tl::store(y + first + half, x2 * c - x1 * s, mask);
    }
  }
};

// The tables indexed with x's row length, D, instead of their own, D / 2: the second half of the
// rows reads past the end of cos.
template <int B0, int B1>
struct RopeTablesWithRowLengthD {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    const int half = D / 2;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int i = 0; i < half; i += B1) {
      auto pairs = i + tl::arange<B1>();
      auto mask = (rows < N0).col() & (pairs < half).row();
      auto first = rows.col() * D + pairs.row();
      auto x1 = tl::load(x + first, mask), x2 = tl::load(x + first + half, mask);
      auto c = tl::load(cos + first, mask), s = tl::load(sin + first, mask);
      tl::store(y + first, x1 * c - x2 * s, mask);
      tl::store(y + first + half, x2 * c + x1 * s, mask);
    }
  }
};

// ---- swiglu ----

// sigmoid(a) as exp(a) / (1 + exp(a)): equal on paper, inf / inf in float once a passes 88.
template <int B0, int B1>
struct SwigluSigmoidFromExpOfTheGate {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto a = tl::load(x + rows.col() * (2 * D) + cols.row(), mask);
      auto b = tl::load(x + rows.col() * (2 * D) + D + cols.row(), mask);
      auto e = tl::exp(a);
      tl::store(y + rows.col() * D + cols.row(), a * (e / (1.0f + e)) * b, mask);
    }
  }
};

// silu applied to the second half instead of the first: the halves' roles swapped.
template <int B0, int B1>
struct SwigluSiluOfTheValue {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto a = tl::load(x + rows.col() * (2 * D) + cols.row(), mask);
      auto b = tl::load(x + rows.col() * (2 * D) + D + cols.row(), mask);
      tl::store(y + rows.col() * D + cols.row(), b * tl::sigmoid(b) * a, mask);
    }
  }
};

// x's rows taken as D long, y's length: from row 1 on, the gate and the value come from the
// wrong places.
template <int B0, int B1>
struct SwigluRowsOfLengthD {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto offsets = rows.col() * D + cols.row();
      auto a = tl::load(x + offsets, mask);
      auto b = tl::load(x + offsets + D, mask);
      tl::store(y + offsets, a * tl::sigmoid(a) * b, mask);
    }
  }
};

// The gate loaded once for silu's a and again for its sigmoid: right, and x read twice.
template <int B0, int B1>
struct SwigluGateLoadedTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto gate = x + rows.col() * (2 * D) + cols.row();
      tl::store(y + rows.col() * D + cols.row(),
                tl::load(gate, mask) * tl::sigmoid(tl::load(gate, mask)) * tl::load(gate + D, mask),
                mask);
    }
  }
};

// ---- embedding ----

// The table read at the row's own number, as a copy would: the ids loaded and not used.
template <int B0, int B1>
struct EmbeddingByRowNumber {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto token = tl::load(ids + rows, rows < N0);
    (void)token;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      tl::store(out + rows.col() * D + cols.row(),
                tl::load(table + rows.col() * D + cols.row(), mask), mask);
    }
  }
};

// Ids taken as 1-based (Lua, Fortran, some tokenizers' files): id 0 reads the row before the
// table.
template <int B0, int B1>
struct EmbeddingIdsOneBased {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto token = tl::load(ids + rows, rows < N0) - 1;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      tl::store(out + rows.col() * D + cols.row(),
                tl::load(table + token.col() * D + cols.row(), mask), mask);
    }
  }
};

// The ids loaded under no mask: a last program with rows past N0 reads past the end of ids (and
// would gather at whatever it found there).
template <int B0, int B1>
struct EmbeddingIdsWithoutTheRowMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto token = tl::load(ids + rows);
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      tl::store(out + rows.col() * D + cols.row(),
                tl::load(table + token.col() * D + cols.row(), mask), mask);
    }
  }
};

// The ids loaded again in every block of columns: right, and each id read cdiv(D, B1) times.
template <int B0, int B1>
struct EmbeddingIdsReloadedEveryBlock {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto token = tl::load(ids + rows, rows < N0);
      tl::store(out + rows.col() * D + cols.row(),
                tl::load(table + token.col() * D + cols.row(), mask), mask);
    }
  }
};

// ---- layer-norm-backward ----

// What the layer-norm-backward kernels below share: one step of B0 rows of a slab, given which
// rows are real, with w loaded once per program. dx is stored; the step's column sums are added to the accumulators. `with_c2`
// false leaves out the gradient through the mean.
template <int B0, int B1, class Weight, class Rows, class RowMask, class Acc>
void layer_norm_backward_step(tl::ptr<const float> x, tl::ptr<const float> dy,
                              const Weight& weight, tl::ptr<const float> mean,
                              tl::ptr<const float> rstd, tl::ptr<float> dx, int D,
                              const Rows& rows, const RowMask& row_mask, Acc& dw_sum,
                              Acc& db_sum, bool with_c2 = true) {
  auto cols = tl::arange<B1>();
  auto mask = row_mask.col() & (cols < D).row();
  auto offsets = rows.col() * D + cols.row();
  auto grad = tl::load(dy + offsets, mask, 0.0f);
  auto row_rstd = tl::load(rstd + rows, row_mask, 0.0f);
  auto xhat = tl::where(
      mask, (tl::load(x + offsets, mask, 0.0f) - tl::load(mean + rows, row_mask, 0.0f).col()) *
                row_rstd.col(),
      0.0f);
  auto g = weight.row() * grad;
  auto c1 = tl::sum<1>(xhat * g) / D;
  auto c2 = tl::sum<1>(g) / D * (with_c2 ? 1.0f : 0.0f);
  tl::store(dx + offsets, (g - (xhat * c1.col() + c2.col())) * row_rstd.col(), mask);
  dw_sum += tl::sum<0>(grad * xhat);
  db_sum += tl::sum<0>(grad);
}

// dx without c2, the gradient that flows back through the mean: the dx of a layer that scales
// each row but does not center it.
template <int B0, int B1>
struct LayerNormBackwardWithoutTheMeanTerm {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0), R = tl::cdiv(N0, G);
    const int end = std::min(p * R + R, N0);
    auto cols = tl::arange<B1>();
    auto weight = tl::load(w + cols, cols < D, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f, db_sum = 0.0f;
    for (int r = p * R; r < end; r += B0) {
      auto rows = r + tl::arange<B0>();
      layer_norm_backward_step<B0, B1>(x, dy, weight, mean, rstd, dx, D, rows, rows < end, dw_sum,
                                       db_sum, false);
    }
    tl::store(partial_dw + p * D + cols, dw_sum, cols < D);
    tl::store(partial_db + p * D + cols, db_sum, cols < D);
  }
};

// The slab's rows masked by N0 alone: a step that reaches past the slab's end takes the next
// program's first rows too, and writes their dx as that program does.
template <int B0, int B1>
struct LayerNormBackwardSlabBoundedByN0 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0), R = tl::cdiv(N0, G);
    const int end = std::min(p * R + R, N0);
    auto cols = tl::arange<B1>();
    auto weight = tl::load(w + cols, cols < D, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f, db_sum = 0.0f;
    for (int r = p * R; r < end; r += B0) {
      auto rows = r + tl::arange<B0>();
      layer_norm_backward_step<B0, B1>(x, dy, weight, mean, rstd, dx, D, rows, rows < N0, dw_sum,
                                       db_sum);
    }
    tl::store(partial_dw + p * D + cols, dw_sum, cols < D);
    tl::store(partial_db + p * D + cols, db_sum, cols < D);
  }
};

// Rows per program N0 / G, rounded down: the last N0 % G rows belong to no program.
template <int B0, int B1>
struct LayerNormBackwardSlabsRoundedDown {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0), R = N0 / G;
    const int end = std::min(p * R + R, N0);
    auto cols = tl::arange<B1>();
    auto weight = tl::load(w + cols, cols < D, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f, db_sum = 0.0f;
    for (int r = p * R; r < end; r += B0) {
      auto rows = r + tl::arange<B0>();
      layer_norm_backward_step<B0, B1>(x, dy, weight, mean, rstd, dx, D, rows, rows < end, dw_sum,
                                       db_sum);
    }
    tl::store(partial_dw + p * D + cols, dw_sum, cols < D);
    tl::store(partial_db + p * D + cols, db_sum, cols < D);
  }
};

// A program whose slab is empty (G > N0) returns at once: "nothing to do", and its rows of the
// partial buffers are never written.
template <int B0, int B1>
struct LayerNormBackwardEmptySlabStoresNothing {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0), R = tl::cdiv(N0, G);
    if (p * R >= N0) return;
    const int end = std::min(p * R + R, N0);
    auto cols = tl::arange<B1>();
    auto weight = tl::load(w + cols, cols < D, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f, db_sum = 0.0f;
    for (int r = p * R; r < end; r += B0) {
      auto rows = r + tl::arange<B0>();
      layer_norm_backward_step<B0, B1>(x, dy, weight, mean, rstd, dx, D, rows, rows < end, dw_sum,
                                       db_sum);
    }
    tl::store(partial_dw + p * D + cols, dw_sum, cols < D);
    tl::store(partial_db + p * D + cols, db_sum, cols < D);
  }
};

}  // namespace wrong

namespace twin {

// ---- rope ----

// Each output as one fused multiply-add, the tables loaded first, the pairs walked from the last
// block to the first.
template <int B0, int B1>
struct RopeWithFma {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    const int half = D / 2;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int i = tl::cdiv(half, B1) * B1 - B1; i >= 0; i -= B1) {
      auto pairs = i + tl::arange<B1>();
      auto mask = (rows < N0).col() & (pairs < half).row();
      auto table = rows.col() * half + pairs.row();
      auto c = tl::load(cos + table, mask, 1.0f), s = tl::load(sin + table, mask, 0.0f);
      auto first = x + rows.col() * D + pairs.row();
      auto x1 = tl::load(first, mask, 0.0f), x2 = tl::load(first + half, mask, 0.0f);
      tl::store(y + rows.col() * D + pairs.row(), tl::fma(x1, c, -(x2 * s)), mask);
      tl::store(y + rows.col() * D + half + pairs.row(), tl::fma(x2, c, x1 * s), mask);
    }
  }
};

// ---- swiglu ----

// silu as a / (1 + exp(-a)): exp(-a) is inf for gates far below zero, and a / inf is -0, right.
template <int B0, int B1>
struct SwigluDividing {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      auto row_start = x + rows.col() * (2 * D);
      auto a = tl::load(row_start + cols.row(), mask, 0.0f);
      auto b = tl::load(row_start + (D + cols).row(), mask, 0.0f);
      tl::store(y + rows.col() * D + cols.row(), a / (1.0f + tl::exp(-a)) * b, mask);
    }
  }
};

// ---- embedding ----

// The ids of rows past N0 loaded as 0 and the blocks walked from the last to the first; the
// gather and the store under one mask made once per block.
template <int B0, int B1>
struct EmbeddingBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto token = tl::load(ids + rows, rows < N0, 0);
    for (int j = tl::cdiv(D, B1) * B1 - B1; j >= 0; j -= B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < D).row();
      tl::store(out + rows.col() * D + cols.row(),
                tl::load(table + token.col() * D + cols.row(), mask, 0.0f), mask);
    }
  }
};

// ---- layer-norm-backward ----

// The slab walked from its last step to its first; xhat not cleaned with `where` (its padding
// lanes meet dy = 0 and w = 0, and add nothing); the means as sums times 1 / D.
template <int B0, int B1>
struct LayerNormBackwardFromTheSlabsEnd {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0), R = tl::cdiv(N0, G);
    const int begin = std::min(p * R, N0), end = std::min(p * R + R, N0);
    const float inv_d = 1.0f / static_cast<float>(D);
    auto cols = tl::arange<B1>();
    auto weight = tl::load(w + cols, cols < D, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f, db_sum = 0.0f;
    const int steps = tl::cdiv(end - begin, B0);
    for (int k = steps - 1; k >= 0; --k) {
      auto rows = begin + k * B0 + tl::arange<B0>();
      auto row_mask = rows < end;
      auto mask = row_mask.col() & (cols < D).row();
      auto offsets = rows.col() * D + cols.row();
      auto grad = tl::load(dy + offsets, mask, 0.0f);
      auto r_std = tl::load(rstd + rows, row_mask, 1.0f);
      auto xhat = (tl::load(x + offsets, mask, 0.0f) - tl::load(mean + rows, row_mask, 0.0f).col()) *
                  r_std.col();
      auto g = grad * weight.row();
      auto c1 = tl::sum<1>(g * xhat) * inv_d;
      auto c2 = tl::sum<1>(g) * inv_d;
      tl::store(dx + offsets, r_std.col() * (g - c2.col() - xhat * c1.col()), mask);
      dw_sum += tl::sum<0>(xhat * grad);
      db_sum += tl::sum<0>(grad);
    }
    tl::store(partial_db + p * D + cols, db_sum, cols < D);
    tl::store(partial_dw + p * D + cols, dw_sum, cols < D);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("transformer");
TP_WRONG(RopeInterleaved, rope, "wrong-result", "");
TP_WRONG(RopeRotatedBackwards, rope, "wrong-result", "");
TP_WRONG(RopeTablesWithRowLengthD, rope, "out-of-bounds", "loads from cos outside");
TP_WRONG(SwigluSigmoidFromExpOfTheGate, swiglu, "nan-inf", "");
TP_WRONG(SwigluSiluOfTheValue, swiglu, "wrong-result", "");
TP_WRONG(SwigluRowsOfLengthD, swiglu, "wrong-result", "");
TP_WRONG(SwigluGateLoadedTwice, swiglu, "efficiency-budget", "");
TP_WRONG(EmbeddingByRowNumber, embedding, "wrong-result", "");
TP_WRONG(EmbeddingIdsOneBased, embedding, "out-of-bounds", "loads from table outside");
TP_WRONG_FIRST_CONFIGS(EmbeddingIdsWithoutTheRowMask, embedding, 2, "out-of-bounds",
                       "loads from ids outside");
TP_WRONG(EmbeddingIdsReloadedEveryBlock, embedding, "efficiency-budget", "");
TP_WRONG(LayerNormBackwardWithoutTheMeanTerm, layer_norm_backward, "wrong-result", "");
TP_WRONG_FIRST_CONFIGS(LayerNormBackwardSlabBoundedByN0, layer_norm_backward, 2,
                       "race-write-write", "stores to dx elements another program");
TP_WRONG(LayerNormBackwardSlabsRoundedDown, layer_norm_backward, "unwritten-output", "");
TP_WRONG(LayerNormBackwardEmptySlabStoresNothing, layer_norm_backward, "unwritten-output", "");
TP_TWIN(RopeWithFma, rope);
TP_TWIN(SwigluDividing, swiglu);
TP_TWIN(EmbeddingBackwards, embedding);
TP_TWIN(LayerNormBackwardFromTheSlabsEnd, layer_norm_backward);
TP_CORPUS_TESTS("transformer")
