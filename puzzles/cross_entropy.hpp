// Puzzle 20, cross-entropy: the loss of each row of logits[N0, V] against its target class, over
// a long vocabulary, in one read of the logits.
// Read docs/puzzles/cross-entropy.md, write the kernel below, then run `./build/tilepuzzles check 20`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// Each program computes the loss of B0 rows, B1 columns of logits at a time:
//   loss[r] = log(sum_c exp(logits[r, c])) - logits[r, target[r]],
// and loss[r] = 0 where target[r] is -100, the ignored class (PyTorch's ignore_index): such a
// row's target names no column. The logits are large: exp must only ever see values shifted by a
// row's maximum. Each element of logits may be read at most 2 times and all of them together
// N0 * V + N0 times (one pass over each row, and one more load of each row's target logit).
template <int B0, int B1>
struct CrossEntropy {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    // Your code here.
  }
};

}  // namespace puzzles
