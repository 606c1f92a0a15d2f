// Puzzle 17, rms-norm: y = x / sqrt(mean(x^2) + eps) * w along each row of x[N0, D], in two
// passes over each row: the mean of the squares, then the normalized row.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct RmsNorm {
  // 16 elements of the block per thread, 1 to 16 warps (as the softmaxes).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w, tl::ptr<float> y,
                            int N0, int D) const {
    constexpr float eps = 1e-5f;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // Pass 1: the sum of squares of each row. Lanes past the row's end load as 0 and add nothing.
    tl::tile<float, B0> sum_sq = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask, 0.0f);
      sum_sq += tl::sum<1>(block * block);
    }
    // The mean over the row's D elements, not over the lanes the loop walked.
    auto rstd = tl::rsqrt(sum_sq / D + eps);

    // Pass 2: normalize, scale by the weight (one [B1] slice of w serves all B0 rows), store.
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask);
      auto weight = tl::load(w + cols, cols < D);
      tl::store(y + rows.col() * D + cols.row(), block * rstd.col() * weight.row(), mask);
    }
  }
};

}  // namespace solutions
