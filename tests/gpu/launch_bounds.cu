// Kernels for tests/gpu/launch_bounds.cpp: one whose accumulator alone is 128 registers per
// thread, built without min_blocks_per_multiprocessor and with 2 (cuda/launch.cuh).
#define TL_NUM_WARPS 8

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "tests/gpu/launch_bounds.hpp"
#include "tile/tl.hpp"

namespace tp::gpu_tests {
namespace {

constexpr int M = 128, N = 256, K = 16;

// z = x @ y, [M, K] @ [K, N], in fp32 (tl::dot's FFMA lowering): [M, N] floats over 256 threads.
struct WideProduct {
  static constexpr int num_warps = 8;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z) const {
    auto rows = tl::arange<M>();
    auto cols = tl::arange<N>();
    auto ks = tl::arange<K>();
    const int row_length = K, col_length = N;  // values: the namespace's constants are host variables
    auto a = tl::load(x + rows.col() * row_length + ks.row());
    auto b = tl::load(y + ks.col() * col_length + cols.row());
    tl::store(z + rows.col() * col_length + cols.row(), tl::dot(a, b));
  }
};

struct WideProductTwoBlocks : WideProduct {
  static constexpr int min_blocks_per_multiprocessor = 2;
};

template <class Kernel>
launch_bounds_result run() {
  launch_bounds_result result;
  std::vector<float> hx(M * K), hy(K * N), hz(M * N, 0.0f);
  for (int i = 0; i < M * K; ++i) hx[i] = static_cast<float>(i % 7 - 3);
  for (int i = 0; i < K * N; ++i) hy[i] = static_cast<float>(i % 5 - 2);
  tp::gpu::device_buffer x(hx.size() * 4), y(hy.size() * 4), z(hz.size() * 4);
  if (x.error() || y.error() || z.error()) {
    result.error = "cudaMalloc failed";
    return result;
  }
  cudaMemcpy(x.get(), hx.data(), hx.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(y.get(), hy.data(), hy.size() * 4, cudaMemcpyHostToDevice);
  constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>>;
  const tp::gpu::shared_arena& arena = tp::gpu::shared_arena_of<function>();
  if (!arena.error.empty()) {
    result.error = arena.error;
    return result;
  }
  cudaFuncAttributes attributes{};
  cudaFuncGetAttributes(&attributes, function);
  result.registers = attributes.numRegs;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&result.blocks_per_multiprocessor, function,
                                                32 * Kernel::num_warps, arena.bytes);
  function<<<1, 32 * Kernel::num_warps, arena.bytes>>>(Kernel{}, {static_cast<const float*>(x.get())},
                                                      {static_cast<const float*>(y.get())},
                                                      {static_cast<float*>(z.get())});
  if (auto e = cudaDeviceSynchronize()) {
    result.error = tp::gpu::describe(e, "running the kernel");
    return result;
  }
  cudaMemcpy(hz.data(), z.get(), hz.size() * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < M && result.error.empty(); ++i)
    for (int j = 0; j < N && result.error.empty(); ++j) {
      float want = 0.0f;  // small whole numbers: every sum exact
      for (int k = 0; k < K; ++k) want += hx[i * K + k] * hy[k * N + j];
      if (hz[i * N + j] != want)
        result.error = "z[" + std::to_string(i) + ", " + std::to_string(j) + "] = " +
                       std::to_string(hz[i * N + j]) + ", not " + std::to_string(want);
    }
  return result;
}

}  // namespace

launch_bounds_result run_wide_product(bool two_blocks) {
  return two_blocks ? run<WideProductTwoBlocks>() : run<WideProduct>();
}

}  // namespace tp::gpu_tests
