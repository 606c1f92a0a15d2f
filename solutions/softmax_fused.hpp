// Puzzle 11, softmax-fused: the row-wise softmax of x[N0, T] with each row in one tile, as in
// Triton's fused-softmax tutorial: one read of x, one write of z.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct SoftmaxFused {
  // 16 elements of the block per thread: more warps for longer rows (fewer registers per thread),
  // fewer for short ones (a cheaper reduction along the row); 1 to 16 warps.
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();

    // Lanes past the end of a row hold -inf: they change neither the maximum nor the sum.
    auto row = tl::load(x + offsets, mask, -INFINITY);
    auto numerator = tl::exp(row - tl::max<1>(row).col());
    auto denominator = tl::sum<1>(numerator);
    tl::store(z + offsets, numerator / denominator.col(), mask);
  }
};

}  // namespace solutions
