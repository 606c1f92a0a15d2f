// Puzzle 6, outer-mul-relu: z[j, i] = relu(x[i] * y[j]), the product and the relu fused.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct OuterMulRelu {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();  // columns of z
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();  // rows of z
    auto x_row = tl::load(x + i, i < N0);
    auto y_col = tl::load(y + j, j < N1);
    auto product = y_col.col() * x_row.row();
    auto mask = (j < N1).col() & (i < N0).row();
    tl::store(z + j.col() * N0 + i.row(), tl::maximum(product, 0.0f), mask);
  }
};

}  // namespace solutions
