// The corpus (tests/corpus.hpp) for the puzzles with reductions along rows: long-sum and the three
// softmaxes. Most of these wrong kernels pass on inputs that are too kind; the puzzles' cases
// against them (rows far below zero, peaks in the last block, rows past 4096) make them fail on
// every seed.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "check_as_puzzle.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/long_softmax_3loop.hpp"
#include "checker/specs/long_sum.hpp"
#include "checker/specs/softmax_fused.hpp"
#include "corpus.hpp"
#include "tests/kernels/rows.hpp"

namespace wrong {

using rows::load_block;
using rows::store_softmax;

// ---- long-sum ----

// "No row is longer than 1024."
template <int B0, int B1>
struct LongSumUpTo1024 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T && j < 1024; j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// Stops at 65536 columns: "no row is longer than the benchmarks' 65536". Only the large tier's
// rows of 131075 show it.
template <int B0, int B1>
struct LongSumUpTo65536 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T && j < 65536; j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// -inf as the masked lanes' `other`, copied from a softmax: the ragged rows sum to -inf.
template <int B0, int B1>
struct LongSumWithMinusInfinityOther {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, -INFINITY));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// The running sum in a tile declared without a value.
template <int B0, int B1>
struct LongSumFromAnUnsetTile {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// Accumulates into z itself, as if outputs started at zero.
template <int B0, int B1>
struct LongSumAccumulatingInZ {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    for (int j = 0; j < T; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, 0.0f);
      tl::store(z + rows, tl::load(z + rows, rows < N0) + tl::sum<1>(block), rows < N0);
    }
  }
};

// Stores the running sum after every block: right in the end, but z is written T / B1 times.
template <int B0, int B1>
struct LongSumStoringEveryBlock {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
      tl::store(z + rows, row_sum, rows < N0);  // after every block
    }
  }
};

// Looks the row's length up in a std::vector sized for the rows a program covers, and indexes it
// past its end: std::vector::at throws.
template <int B0, int B1>
struct LongSumIndexingAVectorPastItsEnd {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    std::vector<int> lengths(B0, T);
    tl::tile<float, B0> row_sum = tl::sum<1>(load_block<B1>(x, rows, 0, N0, T, 0.0f));
    for (int j = B1; j < lengths.at(B0); j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// ---- the long softmaxes ----

// The running maximum starts at 0 instead of -inf: "the max is at least 0 anyway".
template <int B0, int B1>
struct Softmax2LoopMaxFromZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = 0.0f;
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// The running maximum starts at -1e4, "below any real element": a row below -1e4 never raises
// it, and every exp underflows (0 / 0).
template <int B0, int B1>
struct Softmax2LoopMaxFromMinus1e4 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-1e4f);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// The rescale as a ratio of exponentials, exp(old) / exp(new): the same number on paper, inf / inf
// once a maximum passes 88.
template <int B0, int B1>
struct Softmax2LoopRescalingByARatio {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * (tl::exp(row_max) / tl::exp(new_max)) +
                tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// Both loops stop at 1024 columns.
template <int B0, int B1>
struct Softmax2LoopUpTo1024 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    const int end = T < 1024 ? T : 1024;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < end; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    store_softmax<B1>(x, z, rows, N0, T, end, row_max, row_sum);
  }
};

// Both loops stop at 16384 columns, "the longest row a softmax sees": only the large tier's
// rows of 131075 show it.
template <int B0, int B1>
struct Softmax2LoopUpTo16384 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    const int end = T < 16384 ? T : 16384;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < end; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    store_softmax<B1>(x, z, rows, N0, T, end, row_max, row_sum);
  }
};

// The maximum's pass loads the masked lanes as 0, which wins the maximum of a row below zero.
template <int B0, int B1>
struct Softmax3LoopMaxPaddedWithZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1)
      row_max = tl::maximum(row_max, tl::max<1>(load_block<B1>(x, rows, j, N0, T, 0.0f)));
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum +
                tl::sum<1>(tl::exp(load_block<B1>(x, rows, j, N0, T, -INFINITY) - row_max.col()));
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// The maximum's pass pads with -1e4 instead of -inf: in a row below -1e4 the padding wins the
// maximum, and every exp of the sum underflows (0 / 0).
template <int B0, int B1>
struct Softmax3LoopMaxPaddedWithMinus1e4 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1)
      row_max = tl::maximum(row_max, tl::max<1>(load_block<B1>(x, rows, j, N0, T, -1e4f)));
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum +
                tl::sum<1>(tl::exp(load_block<B1>(x, rows, j, N0, T, -INFINITY) - row_max.col()));
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// ---- softmax-fused ----

// The row loaded with -1e4 in its masked lanes, "as good as -inf": in a row below -1e4 they win
// the maximum and take all the weight (exp(0) each), and the real elements get 0.
template <int B0, int B1>
struct SoftmaxFusedPaddedWithMinus1e4 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto row = tl::load(x + rows.col() * T + cols.row(), mask, -1e4f);
    auto numerator = tl::exp(row - tl::max<1>(row).col());
    tl::store(z + rows.col() * T + cols.row(), numerator / tl::sum<1>(numerator).col(), mask);
  }
};

// The maximum over lanes padded with 0; the sum masks its lanes properly.
template <int B0, int B1>
struct SoftmaxFusedMaxPaddedWithZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto row = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
    auto numerator = tl::where(mask, tl::exp(row - tl::max<1>(row).col()), 0.0f);
    tl::store(z + rows.col() * T + cols.row(), numerator / tl::sum<1>(numerator).col(), mask);
  }
};

// Divides by the sum over the whole tile, every row of it: right only with one row per program
// (and the rows past N0, all -inf, make that sum NaN).
template <int B0, int B1>
struct SoftmaxFusedDividingByTheTileSum {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto row = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
    auto numerator = tl::exp(row - tl::max<1>(row).col());
    float total = tl::sum(numerator);
    tl::store(z + rows.col() * T + cols.row(), numerator / total, mask);
  }
};

}  // namespace wrong

namespace twin {

// `where` instead of `other`: the load leaves its masked lanes poison and `where` replaces them.
template <int B0, int B1>
struct LongSumCleaningWithWhere {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      row_sum += tl::sum<1>(tl::where(mask, tl::load(x + rows.col() * T + cols.row(), mask), 0.0f));
    }
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// The blocks from the last to the first, through a pointer to the program's first row.
template <int B0, int B1>
struct LongSumBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    const int first_row = tl::program_id(0) * B0;
    tl::ptr<const float> x_rows = x + first_row * T;
    auto rows = tl::arange<B0>();
    auto row_mask = rows < N0 - first_row;
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = tl::cdiv(T, B1) * B1 - B1; j >= 0; j -= B1) {
      auto cols = j + tl::arange<B1>();
      row_sum = tl::sum<1>(tl::load(x_rows + rows.col() * T + cols.row(),
                                    row_mask.col() & (cols < T).row(), 0.0f)) + row_sum;
    }
    tl::store(z + first_row + rows, row_sum, row_mask);
  }
};

// Three loops in base 2: exp(x - m) as exp2((x - m) * log2(e)).
template <int B0, int B1>
struct Softmax3LoopWithExp2 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    constexpr float log2e = 1.4426950408889634f;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      row_max = tl::maximum(tl::max<1>(tl::load(x + rows.col() * T + cols.row(), mask,
                                                -INFINITY)), row_max);
    }
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      row_sum += tl::sum<1>(tl::exp2((block - row_max.col()) * log2e));
    }
    auto inverse = 1.0f / row_sum;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
      tl::store(z + rows.col() * T + cols.row(),
                tl::exp2((block - row_max.col()) * log2e) * inverse.col(), mask);
    }
  }
};

// The lowest float instead of -inf, as the initial maximum and the padding: below every finite
// element, so exp of it minus any real maximum is 0, as exp(-inf) is.
template <int B0, int B1>
struct Softmax2LoopFromTheLowestFloat {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    constexpr float lowest = std::numeric_limits<float>::lowest();
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(lowest);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto block = rows::load_block<B1>(x, rows, j, N0, T, lowest);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    rows::store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// The online pass from the last block to the first, masked lanes cleaned with `where`.
template <int B0, int B1>
struct Softmax2LoopBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = tl::cdiv(T, B1) * B1 - B1; j >= 0; j -= B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::where(mask, tl::load(x + rows.col() * T + cols.row(), mask), -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = tl::sum<1>(tl::exp(block - new_max.col())) + tl::exp(row_max - new_max) * row_sum;
      row_max = new_max;
    }
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask);
      tl::store(z + rows.col() * T + cols.row(), tl::exp(block - row_max.col()) / row_sum.col(),
                mask);
    }
  }
};

// `where` for both the maximum (-inf) and the sum (0), exp2 with a log2(e) scale.
template <int B0, int B1>
struct SoftmaxFusedWithWhereAndExp2 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto row = tl::load(x + rows.col() * T + cols.row(), mask);
    auto row_max = tl::max<1>(tl::where(mask, row, -INFINITY));
    auto e = tl::where(mask, tl::exp2((row - row_max.col()) * 1.4426950408889634f), 0.0f);
    tl::store(z + rows.col() * T + cols.row(), e / tl::sum<1>(e).col(), mask);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("reductions");
TP_WRONG(LongSumUpTo1024, long_sum, "wrong-result", "About this case: Rows of 4099");
TP_WRONG(LongSumUpTo65536, long_sum, "wrong-result", "The large tier: rows of 131075");
TP_WRONG(LongSumWithMinusInfinityOther, long_sum, "nan-inf", "with `other` = -inf");
TP_WRONG(LongSumFromAnUnsetTile, long_sum, "poison-store",
         "The poison comes from a tl::tile declared without a value at tests/corpus_reductions.cpp:");
TP_WRONG(LongSumAccumulatingInZ, long_sum, "uninitialized-read", "Outputs start poisoned");
TP_WRONG(LongSumStoringEveryBlock, long_sum, "efficiency-budget", "");
TP_WRONG(LongSumIndexingAVectorPastItsEnd, long_sum, "crash", "after its tile operation at");
TP_WRONG(Softmax2LoopMaxFromZero, long_softmax_2loop, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(Softmax2LoopMaxFromMinus1e4, long_softmax_2loop, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(Softmax3LoopMaxPaddedWithMinus1e4, long_softmax_3loop, "nan-inf",
         "the first NaN is 0 / 0");
TP_WRONG(SoftmaxFusedPaddedWithMinus1e4, softmax_fused, "wrong-result", "-3e4");
TP_WRONG(Softmax2LoopRescalingByARatio, long_softmax_2loop, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(Softmax2LoopUpTo1024, long_softmax_2loop, "unwritten-output", "");
TP_WRONG(Softmax2LoopUpTo16384, long_softmax_2loop, "unwritten-output", "T=131075");
TP_WRONG(Softmax3LoopMaxPaddedWithZero, long_softmax_3loop, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(SoftmaxFusedMaxPaddedWithZero, softmax_fused, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG_FIRST_CONFIGS(SoftmaxFusedDividingByTheTileSum, softmax_fused, 2, "nan-inf", "B0=4");
TP_TWIN(LongSumCleaningWithWhere, long_sum);
TP_TWIN(LongSumBackwards, long_sum);
TP_TWIN(Softmax3LoopWithExp2, long_softmax_3loop);
TP_TWIN(Softmax2LoopBackwards, long_softmax_2loop);
TP_TWIN(Softmax2LoopFromTheLowestFloat, long_softmax_2loop);
TP_TWIN(SoftmaxFusedWithWhereAndExp2, softmax_fused);
TP_CORPUS_TESTS("reductions")

TEST_CASE("A budget report names the line that stores too often, and how often", "[reports]") {
  const auto report = as_puzzle::check(
      as_puzzle::puzzle_with<wrong::LongSumStoringEveryBlock, tp::bindings::long_sum>("long-sum"));
  const auto& d = as_puzzle::the_diagnostic(report);
  REQUIRE(d.kind == "efficiency-budget");
  const std::string file = "tests/corpus_reductions.cpp";
  const int line = as_puzzle::line_of(file, "tl::store(z + rows, row_sum, rows < N0);  // after");
  const long long stores = report.counters.at(1).stores;
  CHECK(stores > report.sizes.at(0));  // more stores than z has elements
  CHECK_THAT(d.message, Catch::Contains("By line: line " + std::to_string(line) + " stores z " +
                                        std::to_string(stores) + " times in all (" + file + ")."));
}
