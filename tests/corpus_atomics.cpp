// The corpus (tests/corpus.hpp) for the puzzles that need atomics: 28 histogram, 29
// split-k-matmul, 32 amax. Each wrong kernel
// below is a mistake that reads as right, and each fails on every seed with the kind beside its
// line at the bottom; the twins pass, written differently from the reference solutions.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/amax.hpp"
#include "checker/specs/histogram.hpp"
#include "checker/specs/split_k_matmul.hpp"
#include "corpus.hpp"

namespace wrong {

// ---- histogram ----

// The counts made in the program, then added to the bins with a plain load and store: a
// read-modify-write that another program may interleave with (on a GPU its counts are lost).
template <int B0, int B1>
struct HistogramPlainLoadAndStore {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto values = tl::load(x + offsets, offsets < N0, -1);
    for (int start = 0; start < NB; start += B1) {
      auto bin = start + tl::arange<B1>();
      auto counts = tl::sum<0>(values.col() == bin.row());
      auto mask = bin < NB;
      tl::store(bins + bin, tl::load(bins + bin, mask) + counts, mask);
    }
  }
};

// One atomic per value at the value's own bin, without a bound: a value outside [0, NB) adds
// outside the bins.
template <int B0, int B1>
struct HistogramBinsUnchecked {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto in_range = offsets < N0;
    auto values = tl::load(x + offsets, in_range);
    tl::atomic_add(bins + values, 1, in_range);
  }
};

// The lanes past N0 loaded as 0, the usual `other`: each counts into bin 0.
template <int B0, int B1>
struct HistogramTailCountedInBinZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto values = tl::load(x + offsets, offsets < N0, 0);
    for (int start = 0; start < NB; start += B1) {
      auto bin = start + tl::arange<B1>();
      tl::atomic_add(bins + bin, tl::sum<0>(values.col() == bin.row()), bin < NB);
    }
  }
};

// Right counts, one atomic per value (bounds checked): every program queues on the busiest bin.
template <int B0, int B1>
struct HistogramOneAtomicPerValue {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto in_range = offsets < N0;
    auto values = tl::load(x + offsets, in_range, -1);
    tl::atomic_add(bins + values, 1, in_range & (values >= 0) & (values < NB));
  }
};

// The program's counts exchanged into the bins rather than added: the last program's count wins.
template <int B0, int B1>
struct HistogramCountsExchanged {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto values = tl::load(x + offsets, offsets < N0, -1);
    for (int start = 0; start < NB; start += B1) {
      auto bin = start + tl::arange<B1>();
      auto counts = tl::sum<0>(values.col() == bin.row());
      tl::atomic_xchg(bins + bin, counts, (bin < NB) & (counts > 0));
    }
  }
};

// ---- split-k-matmul ----

// ---- amax ----

// amax's mistakes, each a line of the solution written otherwise: the row's maximum stored
// (the row's last program wins), the maxima added, the largest value taken for the largest
// magnitude, the lanes past the edge padded with -inf (a max's identity, but |-inf| = inf), and
// one atomic per element rather than per row.
enum class amax_mistake { stored, added, values_not_magnitudes, minus_inf_padding, per_element };

template <int B0, int B1, amax_mistake M>
struct amax_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> amax, int N0, int N1) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto in_bounds = (rows < N0).col() & (cols < N1).row();
    auto tile = tl::load(x + rows.col() * N1 + cols.row(), in_bounds,
                         M == amax_mistake::minus_inf_padding ? -INFINITY : 0.0f);
    if constexpr (M == amax_mistake::per_element) {
      tl::atomic_max(amax + rows.col() + 0 * cols.row(), tl::abs(tile), in_bounds);
      return;
    }
    auto row_amax = M == amax_mistake::values_not_magnitudes ? tl::max<1>(tile)
                                                             : tl::max<1>(tl::abs(tile));
    if constexpr (M == amax_mistake::stored)
      tl::store(amax + rows, row_amax, rows < N0);
    else if constexpr (M == amax_mistake::added)
      tl::atomic_add(amax + rows, row_amax, rows < N0);
    else
      tl::atomic_max(amax + rows, row_amax, rows < N0);
  }
};
template <int B0, int B1>
using AmaxStored = amax_with<B0, B1, amax_mistake::stored>;
template <int B0, int B1>
using AmaxAdded = amax_with<B0, B1, amax_mistake::added>;
template <int B0, int B1>
using AmaxOfValues = amax_with<B0, B1, amax_mistake::values_not_magnitudes>;
template <int B0, int B1>
using AmaxPaddedWithMinusInf = amax_with<B0, B1, amax_mistake::minus_inf_padding>;
template <int B0, int B1>
using AmaxAtomicPerElement = amax_with<B0, B1, amax_mistake::per_element>;

}  // namespace wrong

namespace {

// What varies among the split-K kernels below: the slice of K a program multiplies and how its
// product reaches c.
enum class split_k_mistake { stores_its_partial, every_program_all_of_k, atomic_every_step,
                             slices_rounded_down };

template <int BM, int BN, int BK, int SPLIT_K, split_k_mistake Mistake>
struct split_k_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c,
                            int M, int N, int K) const {
    auto rows = tl::program_id(0) * BM + tl::arange<BM>();
    auto cols = tl::program_id(1) * BN + tl::arange<BN>();
    auto out_mask = (rows < M).col() & (cols < N).row();
    int begin = tl::program_id(2) * BK, end = K, step = BK * SPLIT_K;
    if constexpr (Mistake == split_k_mistake::every_program_all_of_k) {
      begin = 0, step = BK;
    } else if constexpr (Mistake == split_k_mistake::slices_rounded_down) {
      const int length = K / SPLIT_K;
      begin = tl::program_id(2) * length, end = begin + length, step = BK;
    }
    tl::tile<float, BM, BN> partial = 0.0f;
    for (int k = begin; k < end; k += step) {
      auto ks = k + tl::arange<BK>();
      auto a_block = tl::load(a + rows.col() * K + ks.row(), (rows < M).col() & (ks < end).row(), 0.0f);
      auto b_block = tl::load(b + ks.col() * N + cols.row(), (ks < end).col() & (cols < N).row(), 0.0f);
      if constexpr (Mistake == split_k_mistake::atomic_every_step)
        tl::atomic_add(c + rows.col() * N + cols.row(), tl::dot(a_block, b_block), out_mask);
      else
        partial = tl::dot(a_block, b_block, partial);
    }
    if constexpr (Mistake == split_k_mistake::stores_its_partial)
      tl::store(c + rows.col() * N + cols.row(), partial, out_mask);
    else if constexpr (Mistake != split_k_mistake::atomic_every_step)
      tl::atomic_add(c + rows.col() * N + cols.row(), partial, out_mask);
  }
};

}  // namespace

namespace wrong {

// The partial tile stored, as a plain matmul stores its tile: the SPLIT_K programs of a tile
// write the same elements, and the last one's slice of K is all that stays.
template <int BM, int BN, int BK, int SPLIT_K>
using SplitKStoresItsPartial = split_k_with<BM, BN, BK, SPLIT_K, split_k_mistake::stores_its_partial>;
// Every program of a tile multiplies all of K: the product, SPLIT_K times over.
template <int BM, int BN, int BK, int SPLIT_K>
using SplitKEveryProgramAllOfK =
    split_k_with<BM, BN, BK, SPLIT_K, split_k_mistake::every_program_all_of_k>;
// Right sums, each block's product added to c as soon as it is made: an atomic per step.
template <int BM, int BN, int BK, int SPLIT_K>
using SplitKAtomicEveryStep = split_k_with<BM, BN, BK, SPLIT_K, split_k_mistake::atomic_every_step>;
// Contiguous slices of K / SPLIT_K columns, rounded down: the columns past SPLIT_K slices are
// nobody's.
template <int BM, int BN, int BK, int SPLIT_K>
using SplitKSlicesRoundedDown =
    split_k_with<BM, BN, BK, SPLIT_K, split_k_mistake::slices_rounded_down>;

}  // namespace wrong

namespace twin {

// The plain load and store's twin: the same counts, added with an atomic, the blocks of bins
// walked from the last to the first, and every bin of a block added (zeros too).
template <int B0, int B1>
struct HistogramAtomicFromTheLastBins {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto in_range = offsets < N0;
    auto values = tl::load(x + offsets, in_range, 0);
    auto counted = in_range & (values >= 0) & (values < NB);
    for (int start = (NB - 1) / B1 * B1; start >= 0; start -= B1) {
      auto bin = start + tl::arange<B1>();
      auto hit = (values.col() == bin.row()) & counted.col();
      tl::atomic_add(bins + bin, tl::sum<0>(tl::where(hit, 1, 0)), bin < NB);
    }
  }
};

// Contiguous slices rather than interleaved blocks: slice z is blocks z * per .. z * per + per - 1
// of the cdiv(K, BK) blocks, per = cdiv(blocks, SPLIT_K), so that the last slice may be short or
// empty.
template <int BM, int BN, int BK, int SPLIT_K>
struct SplitKContiguousSlices {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c,
                            int M, int N, int K) const {
    auto rows = tl::program_id(0) * BM + tl::arange<BM>();
    auto cols = tl::program_id(1) * BN + tl::arange<BN>();
    const int per = tl::cdiv(tl::cdiv(K, BK), SPLIT_K);
    const int begin = tl::program_id(2) * per * BK;
    const int end = begin + per * BK < K ? begin + per * BK : K;
    tl::tile<float, BM, BN> partial = 0.0f;
    for (int k = begin; k < end; k += BK) {
      auto ks = k + tl::arange<BK>();
      partial += tl::dot(tl::load(a + rows.col() * K + ks.row(), (rows < M).col() & (ks < end).row(), 0.0f),
                         tl::load(b + ks.col() * N + cols.row(), (ks < end).col() & (cols < N).row(), 0.0f));
    }
    tl::atomic_add(c + rows.col() * N + cols.row(), partial, (rows < M).col() & (cols < N).row());
  }
};

// The largest magnitude as the larger of the row's maximum and its negated minimum, masked lanes
// taken out by `where` rather than by the load's `other`.
template <int B0, int B1>
struct AmaxFromMaxAndMin {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> amax, int N0, int N1) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto in_bounds = (rows < N0).col() & (cols < N1).row();
    auto tile = tl::where(in_bounds, tl::load(x + rows.col() * N1 + cols.row(), in_bounds), 0.0f);
    tl::atomic_max(amax + rows, tl::maximum(tl::max<1>(tile), -tl::min<1>(tile)), rows < N0);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("atomics");
TP_WRONG(HistogramPlainLoadAndStore, histogram, "race-read-write", "loads from bins elements");
TP_WRONG(HistogramBinsUnchecked, histogram, "out-of-bounds", "atomically updates bins outside");
TP_WRONG(HistogramTailCountedInBinZero, histogram, "wrong-result", "");
TP_WRONG(HistogramOneAtomicPerValue, histogram, "efficiency-budget", "atomics on bins");
TP_WRONG(HistogramCountsExchanged, histogram, "wrong-result", "");
TP_WRONG(SplitKStoresItsPartial, split_k_matmul, "race-write-write", "stores to c elements");
TP_WRONG(SplitKEveryProgramAllOfK, split_k_matmul, "wrong-result", "");
TP_WRONG(SplitKAtomicEveryStep, split_k_matmul, "efficiency-budget", "atomics on c");
TP_WRONG(SplitKSlicesRoundedDown, split_k_matmul, "wrong-result", "");
TP_WRONG(AmaxStored, amax, "race-write-write", "stores to amax elements");
TP_WRONG(AmaxAdded, amax, "wrong-result", "");
TP_WRONG(AmaxOfValues, amax, "wrong-result", "");
TP_WRONG(AmaxPaddedWithMinusInf, amax, "nan-inf", "");
TP_WRONG(AmaxAtomicPerElement, amax, "efficiency-budget", "atomics on amax");
TP_TWIN(HistogramAtomicFromTheLastBins, histogram);
TP_TWIN(SplitKContiguousSlices, split_k_matmul);
TP_TWIN(AmaxFromMaxAndMin, amax);
TP_CORPUS_TESTS("atomics")
