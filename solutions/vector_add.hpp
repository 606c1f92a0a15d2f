// Puzzle 3, vector-add: z = x + y.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0>
struct VectorAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    tl::store(z + offsets, sum, mask);
  }
};

}  // namespace solutions
