// One flash-attention kernel (solutions/flash_attention.hpp's loop) alone, fp16, KH heads (16) of
// KN tokens (1024): checked against attention in double on 64 sampled rows, then timed (15
// launches after 3, the median; TFLOP/s count 4 KH KN^2 D). Not part of the build: a probe for bench/RESULTS.md, built on the GPU
// machine, e.g.
//
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90a -I . -O3 -DTL_NUM_WARPS=4 -DKB0=128 \
//     -DKB1=64 -DKD=64 -DKST=2 '-DLABEL="128x64x64 w4 s2"' -o /tmp/a bench/attention_probe.cu
//
// KST: the loop over keys a tl::range of that many stages (1: plain `for`); KW: num_warps
// (default TL_NUM_WARPS). PROBE_FLAGS-style A/Bs: put other copies of headers ahead with -I.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <cuda_fp16.h>
#include "checker/gpu_launch.cuh"
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

template <class T, int B0, int B1, int D, int Stages>
struct ProbeAttention {
  static constexpr int num_warps = KW;
  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int N) const {
    int start_m = tl::program_id(0) * B0;
    int head_offset = tl::program_id(1) * N * D;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
    tl::tile<T, B0, D> queries =
        tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    for (auto start_n : tl::range(0, N, B1, tl::num_stages<Stages>)) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
      auto scores = tl::where(col_mask.row(), tl::dot(queries, keys_t) * qk_scale, -INFINITY);
      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      auto p = tl::exp2(scores - m_new.col());
      auto alpha = tl::exp2(m_i - m_new);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(tl::cast<T>(p), values, acc * alpha.col());
      m_i = m_new;
    }
    tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
              row_mask.col());
  }
};

using T = tl::float16;
using K = ProbeAttention<T, KB0, KB1, KD, KST>;
constexpr auto function = tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<T>, int>;

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
    function<<<grid, 32 * K::num_warps, shared>>>(K{}, {(const T*)q}, {(const T*)k}, {(const T*)v}, {(T*)o}, n);
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
