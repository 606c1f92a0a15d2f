// Puzzle 26, argmax: the column of the largest value of each row of x[N0, T], the first one where
// values tie and the first NaN where there is one, in one read of x: each block's own argmax, and
// a running best that a later block replaces only when it beats it.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Argmax {
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<int> index, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    tl::tile<float, B0> best = -INFINITY;
    tl::tile<int, B0> best_col = 0;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      // Lanes past the row's end load as -inf: they tie at best with a real -inf further left.
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      auto block_best = tl::max<1>(block);
      auto block_col = j + tl::argmax<1>(block);
      // Strictly larger, so that the first of equal values stays; a NaN beats everything but an
      // earlier NaN (every comparison with NaN is false).
      auto beats = (block_best > best) | ((block_best != block_best) & (best == best));
      best_col = tl::where(beats, block_col, best_col);
      best = tl::where(beats, block_best, best);
    }
    tl::store(index + rows, best_col, row_mask);
  }
};

}  // namespace solutions
