// One configuration of the fast matmul (solutions/matmul_fast.hpp) for `tilepuzzles bench
// matmul`: bench/CMakeLists.txt generates a unit per configuration of bench/matmul_fast_configs.hpp
// that defines TP_FAST_CONFIG and the configuration's TL_NUM_WARPS, then includes this file.
#include <cuda_runtime.h>

#include "bench/matmul_fast_configs.hpp"
#include "checker/gpu_launch.cuh"
#include "solutions/matmul_fast.hpp"

namespace tp::bench_gpu {

namespace {

constexpr fast_config config = fast_configs[TP_FAST_CONFIG];
static_assert(config.warps == TL_NUM_WARPS, "bench/CMakeLists.txt built this unit for another warp count");

template <class T>
void launch(const void* x, const void* y, float* z, int n, cudaStream_t stream) {
  using K = solutions::MatmulFast<T, config.b0, config.b1, config.b_mid, config.stages, config.group_m, config.warps>;
  constexpr auto function = tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<float>, int, int, int, int>;
  const dim3 grid((n + config.b0 - 1) / config.b0, (n + config.b1 - 1) / config.b1, 1);
  // The programs' tensor maps (cuda/tensor_maps.cuh): allocated at the first launch of a size,
  // the check's, outside any graph the timing captures.
  if (auto problem = tl::cuda::provide_tensor_maps(1LL * grid.x * grid.y); !problem.empty())
    throw std::runtime_error(problem);
  function<<<grid, 32 * K::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(
      K{}, {static_cast<const T*>(x)}, {static_cast<const T*>(y)}, {z}, n, n, 1, n);
}

}  // namespace

template <>
void matmul_fast<TP_FAST_CONFIG>(bool bf16, const void* x, const void* y, float* z, int n, cudaStream_t stream) {
  if (bf16) launch<tl::bfloat16>(x, y, z, n, stream);
  else launch<tl::float16>(x, y, z, n, stream);
}

}  // namespace tp::bench_gpu
