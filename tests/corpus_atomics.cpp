// The corpus (tests/corpus.hpp) for the puzzles that need atomics: 28 histogram. Each wrong kernel
// below is a mistake that reads as right, and each fails on every seed with the kind beside its
// line at the bottom; the twins pass, written differently from the reference solutions.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/histogram.hpp"
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

}  // namespace twin

TP_CORPUS_GROUP("atomics");
TP_WRONG(HistogramPlainLoadAndStore, histogram, "race-read-write", "loads from bins elements");
TP_WRONG(HistogramBinsUnchecked, histogram, "out-of-bounds", "atomically updates bins outside");
TP_WRONG(HistogramTailCountedInBinZero, histogram, "wrong-result", "");
TP_WRONG(HistogramOneAtomicPerValue, histogram, "efficiency-budget", "atomics on bins");
TP_WRONG(HistogramCountsExchanged, histogram, "wrong-result", "");
TP_TWIN(HistogramAtomicFromTheLastBins, histogram);
TP_CORPUS_TESTS("atomics")
