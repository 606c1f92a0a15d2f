// One staged fp16 matmul (bench/matmul_kernels.hpp's MatmulStaged) at 4096^3, timed alone: the
// A/B probe of a change to the GPU backend, built against two trees so that the same kernel is
// compared on one GPU in one call. Not part of the build; block sizes come from the command line:
//
//   git archive BASE | tar -x -C /tmp/base      # the tree to compare with
//   D="-DB0_=128 -DB1_=128 -DBK_=16 -DST_=3 -DW_=4 -DTL_NUM_WARPS=4"
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -I /tmp/base $D '-DLABEL="base"' -o base bench/probes/staged_matmul_probe.cu
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -I . $D -DNEW_ARENA '-DLABEL="head"' -o head bench/probes/staged_matmul_probe.cu
//   ./base; ./head    # then ncu --metrics smsp__inst_executed.sum ... on each
//
// NEW_ARENA: the tree launches with the shared-memory arena (cuda/shared_arena.cuh); a tree from
// before it (15039b4 and earlier) launches with static shared memory only.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "bench/matmul_kernels.hpp"
#include "checker/gpu_launch.cuh"
using T = tl::float16;
using K = tp::bench_gpu::MatmulStaged<T, tl::ieee_t, B0_, B1_, BK_, ST_, W_>;
constexpr auto function = tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<float>, int, int, int, int>;
int main() {
  const int n = 4096;
  std::vector<unsigned short> h(size_t(n) * n, 0x3c00);  // 1.0
  void *x, *y; float* z;
  cudaMalloc(&x, 2ull * n * n); cudaMalloc(&y, 2ull * n * n); cudaMalloc(&z, 4ull * n * n);
  cudaMemcpy(x, h.data(), 2ull * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), 2ull * n * n, cudaMemcpyHostToDevice);
#ifdef NEW_ARENA
  const size_t shared = tp::gpu::shared_arena_bytes<function>();
#else
  const size_t shared = 0;
#endif
  cudaFuncAttributes a{}; cudaFuncGetAttributes(&a, function);
  const dim3 grid(n / B0_, n / B1_);
  auto launch = [&] { function<<<grid, 32 * W_, shared>>>(K{}, {(const T*)x}, {(const T*)y}, {z}, n, n, 1, n); };
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  std::vector<float> ms;
  for (int r = 0; r < 15; ++r) { cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e); float t; cudaEventElapsedTime(&t, s, e); ms.push_back(t); }
  std::sort(ms.begin(), ms.end());
  float zz; cudaMemcpy(&zz, z, 4, cudaMemcpyDeviceToHost);
  int blocks = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, 32 * W_, shared);
  std::printf("%s %dx%dx%d st%d w%d: median %.4f ms, %.1f TFLOP/s, regs %d static %zu dynamic %zu, blocks/SM %d, z[0]=%g err=%s\n",
    LABEL, B0_, B1_, BK_, ST_, W_, ms[7], 2.0 * n * n * double(n) / ms[7] / 1e9, a.numRegs, a.sharedSizeBytes, shared, blocks, zz, cudaGetErrorString(cudaGetLastError()));
}
