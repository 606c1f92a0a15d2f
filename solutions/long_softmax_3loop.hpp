// Puzzle 9, long-softmax-3loop: the row-wise softmax of x[N0, T], in three passes over each row.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct LongSoftmax3Loop {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // Pass 1: the maximum of each row.
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      row_max = tl::maximum(row_max, tl::max<1>(block));
    }

    // Pass 2: the sum of exponentials, shifted by the maximum so that none overflows.
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      row_sum = row_sum + tl::sum<1>(tl::exp(block - row_max.col()));
    }

    // Pass 3: normalize and store.
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
