// Puzzle 10, long-softmax-2loop: the row-wise softmax of x[N0, T], with the online max/sum trick,
// in two passes over each row.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct LongSoftmax2Loop {
  // 16 elements of the block per thread: more warps for longer rows (fewer registers per thread),
  // fewer for short ones (a cheaper reduction along the row); 1 to 16 warps.
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // Pass 1: running maximum and running sum together. When the maximum grows, the sum so far
    // is rescaled by exp(old_max - new_max), as if it had been computed with the new maximum.
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) +
                tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }

    // Pass 2: normalize and store.
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask);
      auto softmax = tl::exp(block - row_max.col()) / row_sum.col();
      tl::store(z + rows.col() * T + cols.row(), softmax, mask);
    }
  }
};

}  // namespace solutions
