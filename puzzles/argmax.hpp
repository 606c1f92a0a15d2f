// Puzzle 26, argmax: the column of the largest value of each row of x[N0, T], rows longer than a
// tile. Read docs/puzzles/argmax.md, write the kernel below, then run `./build/tilepuzzles check 26`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program finds, for B0 whole rows of x walked B1 columns at a time,
//   index[r] = the first column c where x[r, c] is the row's largest value,
// or the first column holding a NaN if the row has one (as torch.argmax).
// Each element of x may be read at most once, and each element of index written once.
template <int B0, int B1>
struct Argmax {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<int> index, int N0, int T) const {
    // Your code here.
  }
};

}  // namespace puzzles
