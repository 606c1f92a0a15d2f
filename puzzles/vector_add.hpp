// Puzzle 3, vector-add: z = x + y.
// Read docs/puzzles/vector-add.md, write the kernel below, then run `./build/tilepuzzles check 3`.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

// Each program adds B0 consecutive elements: program i covers x[i*B0 : (i+1)*B0].
// N0 is not a multiple of B0, so the last program must mask the lanes past the end.
template <int B0>
struct VectorAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    // Your code here.
  }
};

}  // namespace puzzles
