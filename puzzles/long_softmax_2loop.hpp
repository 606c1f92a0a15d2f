// Puzzle 10, long-softmax-2loop: the row-wise softmax of x[N0, T] in two loops.
// Read docs/puzzles/long-softmax-2loop.md, write the kernel below, then run `./build/tilepuzzles check 10`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// As puzzle 9, but the maximum and the sum of exponentials come from one loop (the "online"
// softmax): each element of x may be read at most 2 times. The inputs are large, so exp must
// only ever see values shifted by the row's maximum.
template <int B0, int B1>
struct LongSoftmax2Loop {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
