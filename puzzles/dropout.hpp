// Puzzle 30, dropout: y = x * keep / (1 - p), keep = rand(seed, offset) > p, over a long vector.
// Read docs/puzzles/dropout.md, write the kernel below, then run `./build/tilepuzzles check 30`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// x and y hold N0 floats; p holds one float, the probability of dropping an element (0 <= p < 1).
// Each program handles B0 consecutive elements. Element i is kept when tl::rand(seed, i) > p,
// i its offset in x (so the mask is a function of the seed and the element alone):
//   y[i] = x[i] / (1 - p) where kept, 0 where dropped.
// Each element of x may be read once, each element of y written once.
template <int B0>
struct Dropout {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    // Your code here.
  }
};

}  // namespace puzzles
