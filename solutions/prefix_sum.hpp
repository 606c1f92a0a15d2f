// Puzzle 25, prefix-sum: z[r, c] = x[r, 0] + ... + x[r, c] along each row of x[N0, T], one read
// of x: a scan within each block, plus the sum of the row's earlier blocks.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct PrefixSum {
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // The sum of each row's columns before the current block.
    tl::tile<float, B0> carry = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      // Lanes past the row's end load as 0: they add nothing to the carry.
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
      tl::store(z + rows.col() * T + cols.row(), carry.col() + tl::cumsum<1>(block), mask);
      carry += tl::sum<1>(block);
    }
  }
};

}  // namespace solutions
