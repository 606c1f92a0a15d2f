// Puzzle 28, histogram: bins[b] = how many values of x equal b, with tl::atomic_add.
// Read docs/puzzles/histogram.md, write the kernel below, then run `./build/tilepuzzles check 28`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// x[N0] holds int values; bins[NB] starts as zeros (the host zeroes it before the launch). Each
// program takes B0 values of x and adds, for each bin b in [0, NB), how many of its values equal
// b:
//   bins[b] += #{i in the program's values : x[i] == b}.
// Values outside [0, NB) count nowhere. Programs share the bins: add into them with
// tl::atomic_add. Each element of x may be read once, and each program may make at most NB
// atomic additions (a bin's count once, not one per value).
template <int B0, int B1>
struct Histogram {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const int> x, tl::ptr<int> bins, int N0, int NB) const {
    // Your code here.
  }
};

}  // namespace puzzles
