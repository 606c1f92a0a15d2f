// Puzzle 30, dropout: y = x * keep / (1 - p), keep = rand(seed, offset) > p, as Triton's tutorial
// 04 (low-memory dropout): the mask is never stored, only its seed, since each element's random
// number is a function of the seed and the element's offset alone.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0>
struct Dropout {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float drop_probability = tl::load(p);
    // The element's offset in x is its counter: every element draws its own number, the same
    // whichever program and block size draws it.
    auto random = tl::rand(seed, offsets);
    auto keep = random > drop_probability;
    tl::store(y + offsets, tl::where(keep, x_block / (1.0f - drop_probability), 0.0f), mask);
  }
};

}  // namespace solutions
