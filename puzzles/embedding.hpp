// Puzzle 23, embedding: out[r, :] = table[ids[r], :], one row of the table per id.
// Read docs/puzzles/embedding.md, write the kernel below, then run `./build/tilepuzzles check 23`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// ids[N0] holds token ids, each in [0, V); table[V, D] holds one row of D features per id. Each
// program fills B0 whole rows of out[N0, D], B1 columns at a time:
//   out[r, c] = table[ids[r], c].
// Each element of ids may be read once, and each element of out written once; the table is read
// only where an id points.
template <int B0, int B1>
struct Embedding {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    // Your code here.
  }
};

}  // namespace puzzles
