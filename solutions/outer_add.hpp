// Puzzle 4, outer-add: z[j, i] = x[i] + y[j], one program, one [B1, B0] tile.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct OuterAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<B0>();  // columns of z
    auto j = tl::arange<B1>();  // rows of z
    auto x_row = tl::load(x + i);
    auto y_col = tl::load(y + j);
    // [B1, 1] + [1, B0] broadcasts to the [B1, B0] tile of z.
    tl::store(z + j.col() * N0 + i.row(), y_col.col() + x_row.row());
  }
};

}  // namespace solutions
