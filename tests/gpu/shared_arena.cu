// Kernels whose layout conversions need more shared memory than the 48 KiB of static shared
// memory, for tests/gpu/shared_arena_limit.cpp: one that fits a block of an H100 or H200 (165 KiB
// of buffers; its arena, cuda/shared_arena.cuh, 176 KiB) and one that does not (231 KiB of
// buffers, a 240 KiB arena).
#define TL_NUM_WARPS 16

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "tile/tl.hpp"

namespace tp::gpu_tests {
namespace {

// z = x + 1 over [R, C], through a conversion of the loaded tile to the accumulator's layout
// (a buffer of about R * C floats).
template <int R, int C>
TL_FN void add_one_through_shared(tl::ptr<const float> x, tl::ptr<float> z) {
  auto offsets = tl::arange<R>().col() * C + tl::arange<C>().row();
  tl::tile<float, R, C> acc = 1.0f;
  acc = acc + tl::load(x + offsets);
  tl::store(z + offsets, acc);
}

template <bool TooMuch>
struct ConversionsPastStaticSharedMemory {
  static constexpr int num_warps = 16;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    add_one_through_shared<128, 256>(x, z);  // 132 KiB
    add_one_through_shared<64, 128>(x, z);   // 33 KiB
    if constexpr (TooMuch) add_one_through_shared<128, 128>(x, z);  // 66 KiB more
  }
};

template <bool TooMuch>
std::string run() {
  using Kernel = ConversionsPastStaticSharedMemory<TooMuch>;
  constexpr int n = 128 * 256;
  std::vector<float> hx(n), hz(n, 0.0f);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 1000) * 0.5f;
  tp::gpu::device_buffer x(n * sizeof(float)), z(n * sizeof(float));
  if (x.error() || z.error()) return "cudaMalloc failed";
  cudaMemcpy(x.get(), hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const float>, tl::ptr<float>>;
  const tp::gpu::shared_arena& arena = tp::gpu::shared_arena_of<function>();
  if (!arena.error.empty()) return arena.error;
  function<<<1, 32 * Kernel::num_warps, arena.bytes>>>(Kernel{}, {static_cast<const float*>(x.get())},
                                                      {static_cast<float*>(z.get())});
  if (auto e = cudaDeviceSynchronize()) return tp::gpu::describe(e, "running the kernel");
  cudaMemcpy(hz.data(), z.get(), n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (hz[i] != hx[i] + 1.0f)
      return "z[" + std::to_string(i) + "] = " + std::to_string(hz[i]) + ", not " + std::to_string(hx[i] + 1.0f);
  return {};
}

}  // namespace

std::string run_conversions_within_a_block() { return run<false>(); }
std::string run_conversions_past_a_block() { return run<true>(); }

}  // namespace tp::gpu_tests
