// One fp16 matmul kernel of bench/matmul_kernels.hpp at 4096^3, alone: timed (15 launches after 3,
// the median), 64 elements checked against a double-precision product, with its registers and
// blocks per multiprocessor. Not part of the build: the probe of bench/HISTORY.md ("What bounds the
// wgmma matmuls"), built once per kernel, in parallel, on the GPU machine:
//
//   F="-std=c++20 --expt-relaxed-constexpr -arch=sm_90a -I . -O3"
//   nvcc $F -DTL_NUM_WARPS=8 -DKT=MatmulAs8 -DKB0=128 -DKB1=128 -DKBK=32 -DKW=8 '-DLABEL="plain"' -o /tmp/a bench/probes/matmul_probe.cu
//   nvcc $F -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=128 -DKBK=64 -DKST=2 -DKW=8 '-DLABEL="staged"' -o /tmp/b bench/probes/matmul_probe.cu
//   /tmp/a; /tmp/b
//
// (KT: MatmulAs8, MatmulStaged with KST stages and optionally KMB blocks per multiprocessor, or
// Prefetch8 below; nvcc splits -D values at commas, hence one macro per parameter.) The "measurement only" rows of RESULTS were built from
// a tree patched for the probe: TL_PROBE_NO_READBACK skipped the register read-back at the end of
// cuda/operand_stages.cuh's staged_operand_load and wrapped dot_mma's staging fallback in
// `if constexpr (!is_staged_layout<LA> || !is_staged_layout<LB>)`; TL_PROBE_NO_FENCE made
// fence_shared_for_wgmma empty.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <cuda_fp16.h>
#include "bench/matmul_kernels.hpp"
#include "checker/gpu_launch.cuh"
namespace tp::bench_gpu { namespace {
template <class T, class P, int B0, int B1, int BK, int W>
struct Prefetch8 : MatmulPrefetch<T, P, B0, B1, BK> { static constexpr int num_warps = W; };
}}
#if defined(KFLOAT)  // fp32 operands, exact products (dot's FFMA lowering)
using T = float;
using Stored = float;
inline float stored(float v) { return v; }
inline float value(float v) { return v; }
#else
using T = tl::float16;
using Stored = __half;
inline __half stored(float v) { return __float2half(v); }
inline float value(__half v) { return __half2float(v); }
#endif
using namespace tp::bench_gpu;
#if defined(KST) && defined(KMB)
using K = KT<T, tl::ieee_t, KB0, KB1, KBK, KST, KW, KMB>;
#elif defined(KST)
using K = KT<T, tl::ieee_t, KB0, KB1, KBK, KST, KW>;
#else
using K = KT<T, tl::ieee_t, KB0, KB1, KBK, KW>;
#endif
constexpr auto function = tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<float>, int, int, int, int>;
int main() {
  const int n = 4096;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Stored> hx(size_t(n) * n), hy(size_t(n) * n);
  for (auto& v : hx) v = stored(u(rng));
  for (auto& v : hy) v = stored(u(rng));
  void *x, *y; float* z;
  const size_t bytes = sizeof(Stored) * size_t(n) * n;
  cudaMalloc(&x, bytes); cudaMalloc(&y, bytes); cudaMalloc(&z, 4ull * n * n);
  cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice);
  const size_t shared = tp::gpu::shared_arena_bytes<function>();
  cudaFuncAttributes a{}; cudaFuncGetAttributes(&a, function);
  const dim3 grid(n / KB0, n / KB1);
  auto launch = [&] { function<<<grid, 32 * K::num_warps, shared>>>(K{}, {(const T*)x}, {(const T*)y}, {z}, n, n, 1, n); };
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  std::vector<float> ms;
  for (int r = 0; r < 15; ++r) { cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e); float t; cudaEventElapsedTime(&t, s, e); ms.push_back(t); }
  std::sort(ms.begin(), ms.end());
  std::vector<float> hz(size_t(n) * n);
  cudaMemcpy(hz.data(), z, 4ull * n * n, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    const int i = rng() % n, j = rng() % n;
    double ref = 0;
    for (int k = 0; k < n; ++k) ref += double(value(hx[size_t(i) * n + k])) * value(hy[size_t(k) * n + j]);
    worst = std::max(worst, std::abs(ref - hz[size_t(i) * n + j]));
  }
  int blocks = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, 32 * K::num_warps, shared);
  std::printf("%-28s median %.4f ms %6.1f TFLOP/s regs %3d arena %6zu blocks/SM %d max|err| %.2e %s\n", LABEL, ms[7],
              2.0 * n * n * double(n) / ms[7] / 1e9, a.numRegs, shared, blocks, worst, cudaGetErrorString(cudaGetLastError()));
}
