// GPU backend: tl is built for one warp count per translation unit (TL_NUM_WARPS; a puzzle's GPU
// module is built once per count its configurations use, cmake/compile-logged.sh). A kernel
// launched from a unit built for another count fails to compile with a message that says so,
// instead of running with layouts made for another number of threads. The twin is built for its
// 8 warps and compiles.
#ifdef CORRECT_TWIN
#define TL_NUM_WARPS 8
#endif
#include "checker/gpu_launch.cuh"
#include "tile/tl.hpp"
template <int B0>
struct Kernel {
  static constexpr int num_warps = 8;
  TL_KERNEL void operator()(tl::ptr<float> z) const {
    auto offsets = tl::arange<B0>();
    tl::store(z + offsets, tl::sum(tl::load(z + offsets)) + offsets * 0.0f);
  }
};
template __global__ void tp::gpu::program<Kernel<1024>, tl::ptr<float>>(Kernel<1024>,
                                                                         tl::ptr<float>);
