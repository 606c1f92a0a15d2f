// Puzzle 1, constant-add: z = x + 10, one program over the whole vector.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0>
struct ConstantAdd {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::arange<B0>();
    tl::store(z + offsets, tl::load(x + offsets) + 10.0f);
  }
};

}  // namespace solutions
