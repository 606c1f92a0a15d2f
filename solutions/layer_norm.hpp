// Puzzle 18, layer-norm: y = (x - mean) * rstd * w + b along each row of x[N0, D], in two passes
// over each row: the mean and the variance together (block statistics merged with Chan's
// formula, the parallel form of Welford's), then the normalized row.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct LayerNorm {
  // 16 elements of the block per thread, 1 to 16 warps (as the softmaxes).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> w,
                            tl::ptr<const float> b, tl::ptr<float> y, tl::ptr<float> mean,
                            tl::ptr<float> rstd, int N0, int D) const {
    constexpr float eps = 1e-5f;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // Pass 1: each row's mean and m2, its sum of squared deviations from the mean. A block's own
    // mean and m2 come from the block in registers; Chan's formula merges them into the running
    // pair without ever subtracting two large sums of squares.
    tl::tile<float, B0> row_mean = 0.0f;
    tl::tile<float, B0> row_m2 = 0.0f;
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask, 0.0f);
      const int n = std::min(B1, D - j);  // the block's real columns; the j before it are all real
      auto block_mean = tl::sum<1>(block) / n;
      auto centered = tl::where(mask, block - block_mean.col(), 0.0f);
      auto block_m2 = tl::sum<1>(centered * centered);
      const float share = static_cast<float>(n) / static_cast<float>(j + n);
      auto delta = block_mean - row_mean;
      row_mean += delta * share;
      row_m2 += block_m2 + delta * delta * (static_cast<float>(j) * share);
    }
    auto row_rstd = tl::rsqrt(row_m2 / D + eps);
    tl::store(mean + rows, row_mean, row_mask);
    tl::store(rstd + rows, row_rstd, row_mask);

    // Pass 2: normalize, scale by w and shift by b (one [B1] slice of each serves all B0 rows).
    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      auto block = tl::load(x + rows.col() * D + cols.row(), mask);
      auto weight = tl::load(w + cols, cols < D);
      auto bias = tl::load(b + cols, cols < D);
      auto normalized = (block - row_mean.col()) * row_rstd.col();
      tl::store(y + rows.col() * D + cols.row(), normalized * weight.row() + bias.row(), mask);
    }
  }
};

}  // namespace solutions
