// The configurations of the fast matmul (solutions/matmul_fast.hpp) that `tilepuzzles bench
// matmul` measures beside cuBLAS: each one is built in a unit of its own
// (bench/gpu_bench_matmul_fast.cu, generated once per configuration by bench/CMakeLists.txt:
// its nvcc takes a minute or two, and the units build in parallel).
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace tp::bench_gpu {

struct fast_config {
  int b0, b1, b_mid, stages, group_m, warps;
};

inline constexpr fast_config fast_configs[] = {
    {128, 256, 64, 3, 8, 8},
    {256, 128, 64, 3, 8, 8},
};
inline constexpr int fast_config_count = sizeof fast_configs / sizeof fast_configs[0];

inline std::string fast_config_name(const fast_config& c) {
  return "B0=" + std::to_string(c.b0) + " B1=" + std::to_string(c.b1) + " B_MID=" + std::to_string(c.b_mid) +
         ", fast: descriptors in a tl::range of " + std::to_string(c.stages) + " stages, GROUP_M=" +
         std::to_string(c.group_m) + ", " + std::to_string(c.warps) + " warps";
}

// z = x @ y, n x n, float16 (or bfloat16) operands, with configuration I (its own unit).
template <int I>
void matmul_fast(bool bf16, const void* x, const void* y, float* z, int n, cudaStream_t stream);

}  // namespace tp::bench_gpu
