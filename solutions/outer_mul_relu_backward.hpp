// Puzzle 7, outer-mul-relu-backward: dx = relu'(x * y) * y * dz for z = relu(x * y), with y
// scaling the rows of x.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct OuterMulReluBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();  // columns
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();  // rows
    auto offsets = j.col() * N0 + i.row();
    auto mask = (j < N1).col() & (i < N0).row();

    auto x_tile = tl::load(x + offsets, mask);
    auto y_col = tl::load(y + j, j < N1).col();
    auto dz_tile = tl::load(dz + offsets, mask);
    // d relu(v)/dv is 1 where v > 0 and 0 elsewhere; d(x * y)/dx is y.
    auto grad = tl::where(x_tile * y_col > 0.0f, y_col * dz_tile, 0.0f);
    tl::store(dx + offsets, grad, mask);
  }
};

}  // namespace solutions
