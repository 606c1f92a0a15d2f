// Puzzle 8, long-sum: z[i] = sum_j x[i, j], B0 rows per program, B1 columns per loop step.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct LongSum {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      // Lanes past the end of a row load 0, which adds nothing to the sum.
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
      row_sum = row_sum + tl::sum<1>(block);
    }
    tl::store(z + rows, row_sum, row_mask);
  }
};

}  // namespace solutions
