// Puzzle 9, long-softmax-3loop: the row-wise softmax of x[N0, T] in three loops.
// Read docs/puzzles/long-softmax-3loop.md, write the kernel below, then run `./build/tilepuzzles check 9`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program computes B0 whole rows of z = softmax(x), walking each row in blocks of B1
// columns: one loop for the row maximum, one for the sum of exponentials, one to write z.
// Each element of x may be read at most 3 times.
template <int B0, int B1>
struct LongSoftmax3Loop {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
