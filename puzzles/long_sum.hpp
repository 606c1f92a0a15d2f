// Puzzle 8, long-sum: z[i] = sum_j x[i, j], the sum of each row of a long x[N0, T].
// Read docs/puzzles/long-sum.md, write the kernel below, then run `./build/tilepuzzles check 8`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// Each program sums B0 whole rows of x. A row is longer than a tile, so walk it with a loop in
// steps of B1 columns and carry the partial sums from step to step. Each element of x may be
// read only once.
template <int B0, int B1>
struct LongSum {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
