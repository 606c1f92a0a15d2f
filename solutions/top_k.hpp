// Puzzle 27, top-k: the K largest values of each row of x[N0, T], largest first, in one read of
// x: the B1 largest values seen so far kept sorted, and each block merged into them.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct TopK {
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> top, int N0, int T,
                            int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // The B1 largest values of each row so far, largest first; -inf until there are B1.
    tl::tile<float, B0, B1> best = -INFINITY;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      // best falls along the row and the sorted block rises: lane by lane the larger of the
      // two are the B1 largest of both (a bitonic sequence, the first step of a bitonic
      // merge), which one more sort puts in order.
      best = tl::sort<1>(tl::maximum(best, tl::sort<1>(block)), tl::descending);
    }
    auto ks = tl::arange<B1>();
    tl::store(top + rows.col() * K + ks.row(), best, row_mask.col() & (ks < K).row());
  }
};

}  // namespace solutions
