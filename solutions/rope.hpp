// Puzzle 21, rope: the rotary position embedding, half-split. Pair i of a row is
// (x[i], x[i + D/2]), rotated by the angle whose cos and sin the tables hold for the row's
// position; one read of each input and one write of y.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Rope {
  // 16 elements of the block per thread, 1 to 16 warps (as the norms).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> cos,
                            tl::ptr<const float> sin, tl::ptr<float> y, int N0, int D) const {
    const int half = D / 2;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // The loop walks the pairs: column i of the first half and of the tables, column i + half of
    // the second, all under one mask.
    for (int i = 0; i < half; i += B1) {
      auto pairs = i + tl::arange<B1>();
      auto first = rows.col() * D + pairs.row();
      auto table = rows.col() * half + pairs.row();
      auto mask = row_mask.col() & (pairs < half).row();

      auto x1 = tl::load(x + first, mask);
      auto x2 = tl::load(x + first + half, mask);
      auto c = tl::load(cos + table, mask);
      auto s = tl::load(sin + table, mask);
      tl::store(y + first, x1 * c - x2 * s, mask);
      tl::store(y + first + half, x2 * c + x1 * s, mask);
    }
  }
};

}  // namespace solutions
