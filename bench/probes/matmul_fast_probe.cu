// The fast matmul (solutions/matmul_fast.hpp: descriptors in a pipelined range, rings the copy
// engine fills, grouped tiles) at one configuration, beside cuBLAS in the same run: fp16 and bf16
// operands, fp32 accumulation, square sizes (PROBE_SIZES, default "4096 8192"). Each kernel's
// output is poisoned (NaN), checked (every element finite, 256 sampled elements against a
// double-precision product: the norm-wise relative error, under 5e-3 for fp16 and 2e-2 for bf16),
// then timed: 3 launches, then the median of 20, each between CUDA events. Not part of the build:
// one binary per configuration (tl is built for one warp count per translation unit), made on any
// machine with nvcc 13 and run on the GPU machine (bench/probes/matmul_fast_probe.sh):
//
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -I . \
//     -DTL_NUM_WARPS=8 -DKB0=128 -DKB1=256 -DKBK=64 -DKST=3 -DKGM=8 -o /tmp/probe \
//     bench/probes/matmul_fast_probe.cu -lcublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "solutions/matmul_fast.hpp"

#ifndef LABEL
#define LABEL "fast"
#endif
#ifndef KGM
#define KGM 8
#endif

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("FAILED %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

float value(__half v) { return __half2float(v); }
float value(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T, class Launch>
double median_ms(Launch&& launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  check(cudaGetLastError(), "timing");
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// T: cuBLAS's type; TlT: tl's of the same bits.
template <class T, class TlT>
void run(cublasHandle_t handle, int n, const char* dtype, double bound) {
  const std::size_t elements = static_cast<std::size_t>(n) * n;
  std::mt19937 rng(n);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<T> hx(elements), hy(elements);
  for (auto& v : hx) v = T(u(rng));
  for (auto& v : hy) v = T(u(rng));
  T *x, *y, *zc;
  float* z;
  check(cudaMalloc(&x, elements * sizeof(T)), "malloc");
  check(cudaMalloc(&y, elements * sizeof(T)), "malloc");
  check(cudaMalloc(&zc, elements * sizeof(T)), "malloc");
  check(cudaMalloc(&z, elements * sizeof(float)), "malloc");
  check(cudaMemcpy(x, hx.data(), elements * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(y, hy.data(), elements * sizeof(T), cudaMemcpyHostToDevice), "copy");

  using K = solutions::MatmulFast<TlT, KB0, KB1, KBK, KST, KGM, TL_NUM_WARPS>;
  constexpr auto function =
      tp::gpu::program<K, tl::ptr<const TlT>, tl::ptr<const TlT>, tl::ptr<float>, int, int, int, int>;
  const dim3 grid((n + KB0 - 1) / KB0, (n + KB1 - 1) / KB1, 1);
  const std::size_t arena = tp::gpu::shared_arena_bytes<function>();
  if (auto problem = tl::cuda::provide_tensor_maps(1LL * grid.x * grid.y); !problem.empty()) {
    std::printf("FAILED %s\n", problem.c_str());
    std::exit(1);
  }
  auto launch = [&] {
    function<<<grid, 32 * K::num_warps, arena>>>(K{}, {reinterpret_cast<const TlT*>(x)},
                                                 {reinterpret_cast<const TlT*>(y)}, {z}, n, n, 1, n);
  };
  const float one = 1, zero = 0;
  const auto type = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
  auto cublas = [&] {
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, y, type, n, x, type, n, &zero, zc, type, n,
                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };

  // Check.
  check(cudaMemset(z, 0xff, elements * sizeof(float)), "poison");
  launch();
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "run");
  std::vector<float> hz(elements);
  check(cudaMemcpy(hz.data(), z, elements * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
  bool finite = true;
  for (float v : hz) finite = finite && std::isfinite(v);
  double diff = 0, norm = 0;
  for (int s = 0; s < 256; ++s) {
    const long long i = (s * 7919LL + 13) % n, j = (s * 104729LL + 7) % n;
    double want = 0;
    for (int k = 0; k < n; ++k) want += double(value(hx[i * n + k])) * value(hy[static_cast<long long>(k) * n + j]);
    diff += (hz[i * n + j] - want) * (hz[i * n + j] - want);
    norm += want * want;
  }
  const double error = finite ? std::sqrt(diff / norm) : INFINITY;

  const double flops = 2.0 * n * n * static_cast<double>(n);
  const double t_cublas = median_ms<T>(cublas);
  const double t = error < bound ? median_ms<T>(launch) : 0;
  const double t_cublas2 = median_ms<T>(cublas);
  const double base = std::min(t_cublas, t_cublas2);
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, function);
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, 32 * K::num_warps, arena);
  std::printf("%-5s %5d  %-36s %8.3f ms %6.0f TFLOP/s  cuBLAS %8.3f ms %6.0f TFLOP/s  ratio %.3f  err %.1e%s  regs %d  smem %zu KiB  blocks/SM %d\n",
              dtype, n, LABEL, t, t > 0 ? flops / t / 1e9 : 0.0, base, flops / base / 1e9, t > 0 ? base / t : 0.0,
              error, error < bound ? "" : " WRONG", attr.numRegs, arena / 1024, blocks);
  cudaFree(x);
  cudaFree(y);
  cudaFree(zc);
  cudaFree(z);
}

}  // namespace

int main() {
  std::vector<int> sizes = {4096, 8192};
  if (const char* s = std::getenv("PROBE_SIZES")) {
    sizes.clear();
    for (const char* at = s; *at;) {
      char* end = nullptr;
      const long v = std::strtol(at, &end, 10);
      if (end == at) break;
      sizes.push_back(static_cast<int>(v));
      at = *end ? end + 1 : end;
    }
  }
  cublasHandle_t handle;
  cublasCreate(&handle);
  for (int n : sizes) {
    run<__half, tl::float16>(handle, n, "fp16", 5e-3);
#if !defined(PROBE_FP16_ONLY)
    run<__nv_bfloat16, tl::bfloat16>(handle, n, "bf16", 2e-2);
#endif
  }
  cublasDestroy(handle);
  return 0;
}
