// Puzzle 19, softmax-backward: dx = y * (dy - sum(dy * y)) along each row, with each row in one
// tile: one read of y and dy, one write of dx.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct SoftmaxBackward {
  // 16 elements of the block per thread, 1 to 16 warps (as the forward softmax).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();

    // Lanes past the end of a row hold 0 in both tiles: their products add nothing to the sum.
    auto probs = tl::load(y + offsets, mask, 0.0f);
    auto grads = tl::load(dy + offsets, mask, 0.0f);
    // One number per row: how much the row's loss moves when all of its y move together.
    auto weighted = tl::sum<1>(probs * grads);
    tl::store(dx + offsets, probs * (grads - weighted.col()), mask);
  }
};

}  // namespace solutions
