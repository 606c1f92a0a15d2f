// A kernel whose num_warps depends on its block size, with its binding, for the tests of the GPU
// modules' compiler launcher (tests/CMakeLists.txt): its configurations use 1 and 16 warps, so the
// launcher must compile the module twice, once per count.
#pragma once

#include "checker/binding.hpp"
#include "tile/tl.hpp"

namespace solutions {
template <int B0>
struct WarpsPerBlock {
  static constexpr int num_warps = B0 >= 1024 ? 16 : 1;
  TL_KERNEL void operator()(tl::ptr<float> z, int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::store(z + offsets, 1.0f + offsets * 0.0f, offsets < N0);
  }
};
}  // namespace solutions

namespace tp::bindings {
struct warps_per_block {
  static constexpr const char* id = "warps-per-block";
  using signature = void(tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<1024>, blocks<64>>;
  template <class B>
  using stub = instantiate_t<solutions::WarpsPerBlock, B>;
  template <class B>
  using solution = instantiate_t<solutions::WarpsPerBlock, B>;
};
}  // namespace tp::bindings
