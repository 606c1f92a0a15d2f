// The register-blocked kernel of dot_accumulate (simulator/dot.hpp), written once over a set of
// lanes L (load, store, broadcast, fma on L::width floats): simulator/dot.cpp instantiates it
// with portable lanes, simulator/dot_avx2.cpp and dot_avx512.cpp with their instruction sets,
// each unit compiled for its set, so that no vector crosses a function compiled without it (clang
// refuses that even where the call is inlined).
#pragma once

namespace tl::sim::dot_kernel {

// A register block of 4 rows of c by `cols` vectors of lanes, kept in registers over all k.
// Written once as a template and inlined into one function per instruction set, each compiled
// for that set: the same source, the same operation (one fma) per lane and k.
template <class L, int cols>
[[gnu::always_inline]] inline void block(const float* a, const float* b, const float* acc_in,
                                         float* c, int N, int K, int i0, int j0) {
  constexpr int W = L::width;
  typename L::vec acc[4][cols];
  for (int r = 0; r < 4; ++r)
    for (int v = 0; v < cols; ++v) acc[r][v] = L::load(acc_in + (i0 + r) * N + j0 + v * W);
  for (int k = 0; k < K; ++k) {
    typename L::vec bk[cols];
    for (int v = 0; v < cols; ++v) bk[v] = L::load(b + k * N + j0 + v * W);
    for (int r = 0; r < 4; ++r) {
      const auto ark = L::broadcast(a[(i0 + r) * K + k]);
      for (int v = 0; v < cols; ++v) acc[r][v] = L::fma(ark, bk[v], acc[r][v]);
    }
  }
  for (int r = 0; r < 4; ++r)
    for (int v = 0; v < cols; ++v) L::store(c + (i0 + r) * N + j0 + v * W, acc[r][v]);
}

// `widest`: the most vectors a block spans (4 needs the 32 registers of AVX-512: 16 sums, 4 rows
// of b, the broadcast).
template <class L, int widest>
[[gnu::always_inline]] inline void product(const float* a, const float* b, const float* acc,
                                           float* c, int M, int N, int K) {
  constexpr int W = L::width;
  int j0 = 0;
  if constexpr (widest >= 4)
    for (; j0 + 4 * W <= N; j0 += 4 * W)
      for (int i0 = 0; i0 < M; i0 += 4) block<L, 4>(a, b, acc, c, N, K, i0, j0);
  for (; j0 + 2 * W <= N; j0 += 2 * W)
    for (int i0 = 0; i0 < M; i0 += 4) block<L, 2>(a, b, acc, c, N, K, i0, j0);
  for (; j0 < N; j0 += W)
    for (int i0 = 0; i0 < M; i0 += 4) block<L, 1>(a, b, acc, c, N, K, i0, j0);
}

// The product for each x86 instruction set, defined in its own unit compiled for that set; called
// only where the CPU has it.
void product_avx512(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K);
void product_avx2(const float* a, const float* b, const float* acc, float* c, int M, int N, int K);

}  // namespace tl::sim::dot_kernel
