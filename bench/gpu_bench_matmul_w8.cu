// The matmul kernels of `tilepuzzles bench matmul` that run with 8 warps (a 128 x 128 block's
// accumulator is 64 registers per thread with 8, 128 with 4): tl is built for one warp count per
// translation unit (tile/config.hpp), so they are launched from here.
#define TL_NUM_WARPS 8

#include <cuda_runtime.h>

#include "bench/matmul_kernels.hpp"
#include "checker/gpu_launch.cuh"

namespace tp::bench_gpu {

namespace {

template <class Kernel, class T, int B0, int B1>
void launch(const void* x, const void* y, float* z, int n, cudaStream_t stream) {
  const dim3 grid((n + B0 - 1) / B0, (n + B1 - 1) / B1, 1);
  constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<float>, int, int, int, int>;
  function<<<grid, 32 * Kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(Kernel{}, {static_cast<const T*>(x)},
                                                    {static_cast<const T*>(y)}, {z}, n, n, 1, n);
}

template <class T>
bool launch_of(int config, const void* x, const void* y, float* z, int n, cudaStream_t stream) {
  using tl::ieee_t;
  switch (config) {
    case 0: launch<MatmulAs8<T, ieee_t, 128, 128, 32>, T, 128, 128>(x, y, z, n, stream); return true;
    case 1: launch<MatmulAs8<T, ieee_t, 128, 256, 32>, T, 128, 256>(x, y, z, n, stream); return true;
    case 2: launch<MatmulAs8<T, ieee_t, 256, 128, 32>, T, 256, 128>(x, y, z, n, stream); return true;
    case 3: launch<MatmulStaged<T, ieee_t, 128, 128, 32, 3, 8, 2>, T, 128, 128>(x, y, z, n, stream); return true;
    case 4: launch<MatmulStaged<T, ieee_t, 128, 128, 64, 2, 8, 2>, T, 128, 128>(x, y, z, n, stream); return true;
    default: return false;
  }
}

}  // namespace

// z = x @ y, n x n, with 8-warp configuration `config` (bench/gpu_bench_matmul.cu names them);
// false for an unknown one.
bool matmul_w8(bool bf16, int config, const void* x, const void* y, float* z, int n,
               cudaStream_t stream) {
  return bf16 ? launch_of<tl::bfloat16>(config, x, y, z, n, stream)
              : launch_of<tl::float16>(config, x, y, z, n, stream);
}

}  // namespace tp::bench_gpu
