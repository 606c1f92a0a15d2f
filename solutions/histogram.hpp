// Puzzle 28, histogram: each program counts its block of values privately, one block of bins at
// a time, then adds each nonzero count to the shared bins with one atomic, instead of one atomic
// per value (which would queue every program on the busiest bin).
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Histogram {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    // A lane past N0 holds -1, which equals no bin: it counts nowhere, as values out of range.
    auto values = tl::load(x + offsets, offsets < N0, -1);

    for (int start = 0; start < NB; start += B1) {
      auto bin = start + tl::arange<B1>();
      // [B0, B1]: does value i fall in bin j? Summed over the values: this program's counts.
      auto counts = tl::sum<0>(values.col() == bin.row());
      tl::atomic_add(bins + bin, counts, (bin < NB) & (counts > 0));
    }
  }
};

}  // namespace solutions
