// Puzzle 1, constant-add: z = x + 10.
// Read docs/puzzles/constant-add.md, write the kernel below, then run `./build/tilepuzzles check 1`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// One program adds 10 to every element of x and stores the result in z. The block is exactly as
// long as the vectors (B0 == N0 in every case), so every lane has an element: no mask yet.
template <int B0>
struct ConstantAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    // Your code here.
  }
};

}  // namespace puzzles
