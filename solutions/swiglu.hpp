// Puzzle 22, swiglu: y = silu(a) * b, a and b the two halves of each row of x[N0, 2D] (the fused
// gate and up projections of a LLaMA feed-forward block); one read of x, one write of y.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Swiglu {
  // 16 elements of the block per thread, 1 to 16 warps (as the norms).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> y, int N0, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      // x's rows are 2D long: the gate at column c, its value D columns further.
      auto gate_ptrs = x + rows.col() * (2 * D) + cols.row();
      auto gate = tl::load(gate_ptrs, mask);
      auto value = tl::load(gate_ptrs + D, mask);
      // tl::sigmoid stays finite for every gate: exp(gate) / (1 + exp(gate)) would be inf / inf
      // past gate = 88.
      tl::store(y + rows.col() * D + cols.row(), gate * tl::sigmoid(gate) * value, mask);
    }
  }
};

}  // namespace solutions
