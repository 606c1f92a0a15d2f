// Puzzle 32, amax: the largest magnitude of each row, each row split over several programs whose
// maxima meet in the output through tl::atomic_max.
// Read docs/puzzles/amax.md, write the kernel below, then run `./build/tilepuzzles check 32`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// x[N0, N1] is row-major; amax[N0] starts as zeros (the host zeroes it before the launch).
// Program (i, j) of a (cdiv(N0, B0), cdiv(N1, B1)) grid owns the B0 x B1 tile (i, j) of x:
//   amax[r] = max over every column c of |x[r, c]|   (NaN where the row holds a NaN).
// The programs of a row all update the same element of amax: with tl::atomic_max, one per row
// of the tile. Each element of x may be read once.
template <int B0, int B1>
struct Amax {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> amax, int N0, int N1) const {
    // Your code here.
  }
};

}  // namespace puzzles
