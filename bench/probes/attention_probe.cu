// One flash-attention kernel (solutions/flash_attention.hpp, non-causal) alone, fp16, KH heads (16) of
// KN tokens (1024): checked against attention in double on 64 sampled rows, then timed (15
// launches after 3, the median; TFLOP/s count 4 KH KN^2 D). Not part of the build: a probe for bench/HISTORY.md, built on the GPU
// machine, e.g.
//
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90a -I . -O3 -DTL_NUM_WARPS=4 -DKB0=128 \
//     -DKB1=64 -DKD=64 -DKST=2 '-DLABEL="128x64x64 w4 s2"' -o /tmp/a bench/probes/attention_probe.cu
//
// KST: 1, the solution; 2, its loop over keys a 2-stage tl::range (bench/attention_kernels.hpp); 3,
// the fast variant (solutions/flash_attention_pipelined.hpp).
// KW: num_warps (default TL_NUM_WARPS, which must be the same); KMB: min_blocks_per_multiprocessor
// (default the kernel's). A/Bs of headers: put other copies ahead with -I.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <cuda_fp16.h>
#include "bench/attention_kernels.hpp"
#include "checker/gpu_launch.cuh"
#include "solutions/flash_attention.hpp"
#include "solutions/flash_attention_pipelined.hpp"
#include "tile/tl.hpp"

#ifndef KW
#define KW TL_NUM_WARPS
#endif
#ifndef KH  // heads (batch times heads)
#define KH 16
#endif
#ifndef KN  // tokens
#define KN 1024
#endif

using T = tl::float16;
#if KST == 1
using Attention = solutions::FlashAttention<T, KB0, KB1, KD>;
#elif KST == 2
using Attention = tp::bench_gpu::ChangedAttention<T, KB0, KB1, KD,
                                                  tp::bench_gpu::attention_change::keys_pipelined>;
#elif KST == 3
using Attention = solutions::FlashAttentionPipelined<T, KB0, KB1, KD>;
#else
#error "KST: 1 (the solution), 2 (its loop a 2-stage tl::range, bench/attention_kernels.hpp), 3 (the fast variant, solutions/flash_attention_pipelined.hpp)"
#endif
struct K : Attention {
  static constexpr int num_warps = KW;
#ifdef KMB
  static constexpr int min_blocks_per_multiprocessor = KMB;
#endif
};
constexpr auto function = tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<const T>,
                                           tl::ptr<T>, int, int, int, int, int>;

int main() {
  const int heads = KH, n = KN, d = KD;
  const size_t count = size_t(heads) * n * d;
  std::mt19937 rng(1);
  std::normal_distribution<float> u(0.f, 1.f);
  std::vector<__half> hq(count), hk(count), hv(count), ho(count);
  for (auto* x : {&hq, &hk, &hv})
    for (auto& e : *x) e = __float2half(u(rng));
  void *q, *k, *v, *o;
  for (void** p : {&q, &k, &v, &o}) cudaMalloc(p, 2 * count);
  cudaMemcpy(q, hq.data(), 2 * count, cudaMemcpyHostToDevice);
  cudaMemcpy(k, hk.data(), 2 * count, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), 2 * count, cudaMemcpyHostToDevice);
  const size_t shared = tp::gpu::shared_arena_bytes<function>();
  const dim3 grid((n + KB0 - 1) / KB0, heads);
  auto launch = [&] {
    function<<<grid, 32 * K::num_warps, shared>>>(K{}, {(const T*)q}, {(const T*)k}, {(const T*)v}, {(T*)o},
                                                  1, heads, n, d, 0);
  };
  launch();
  cudaDeviceSynchronize();
  cudaMemcpy(ho.data(), o, 2 * count, cudaMemcpyDeviceToHost);
  auto at = [&](const std::vector<__half>& x, int h, int i, int j) { return double(__half2float(x[(size_t(h) * n + i) * d + j])); };
  double worst = 0;
  for (int t = 0; t < 64; ++t) {
    const int h = rng() % heads, i = rng() % n;
    std::vector<double> s(n), out(d, 0.0);
    double m = -INFINITY, l = 0, largest = 0;
    for (int j = 0; j < n; ++j) {
      double dotp = 0;
      for (int c = 0; c < d; ++c) dotp += at(hq, h, i, c) * at(hk, h, j, c);
      s[j] = dotp / std::sqrt(double(d));
      m = std::max(m, s[j]);
    }
    for (int j = 0; j < n; ++j) {
      const double p = std::exp(s[j] - m);
      l += p;
      for (int c = 0; c < d; ++c) out[c] += p * at(hv, h, j, c);
    }
    for (int c = 0; c < d; ++c) largest = std::max(largest, std::abs(out[c] / l));
    for (int c = 0; c < d; ++c) worst = std::max(worst, std::abs(out[c] / l - at(ho, h, i, c)) / largest);
  }
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  std::vector<float> ms;
  for (int r = 0; r < 15; ++r) { cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e); float t; cudaEventElapsedTime(&t, s, e); ms.push_back(t); }
  std::sort(ms.begin(), ms.end());
  cudaFuncAttributes a{}; cudaFuncGetAttributes(&a, function);
  std::printf("%-28s median %.4f ms %6.1f TFLOP/s regs %3d stack %zu arena %6zu error %.2e (bound 1e-2) %s %s\n", LABEL, ms[7],
              4.0 * heads * double(n) * n * d / ms[7] / 1e9, a.numRegs,
              a.localSizeBytes, shared, worst, worst < 1e-2 ? "ok" : "WRONG", cudaGetErrorString(cudaGetLastError()));
}
