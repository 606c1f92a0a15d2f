// Puzzle 2, constant-add-block: z = x + 10, B0 elements per program, the last block masked.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0>
struct ConstantAddBlock {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + 10.0f, mask);
  }
};

}  // namespace solutions
