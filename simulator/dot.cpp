#include "simulator/dot.hpp"

#include <cstring>

namespace tl::sim {

namespace {

// A register block of 4 rows of c by `cols` vectors of W floats, kept in registers over all k.
// Written once as a template and inlined into one function per instruction set, each compiled
// for that set: the same source, the same operations per lane.
template <int W, int cols>
[[gnu::always_inline]] inline void block(const float* a, const float* b, const float* acc_in, float* c,
                                         int N, int K, int i0, int j0) {
  typedef float vec __attribute__((vector_size(W * sizeof(float))));
  vec acc[4][cols];
  for (int r = 0; r < 4; ++r)
    for (int v = 0; v < cols; ++v)
      std::memcpy(&acc[r][v], acc_in + (i0 + r) * N + j0 + v * W, sizeof(vec));
  for (int k = 0; k < K; ++k) {
    vec bk[cols];
    for (int v = 0; v < cols; ++v) std::memcpy(&bk[v], b + k * N + j0 + v * W, sizeof(vec));
    for (int r = 0; r < 4; ++r) {
      const float ark = a[(i0 + r) * K + k];
      for (int v = 0; v < cols; ++v) {
        const vec product = bk[v] * ark;
        acc[r][v] = acc[r][v] + product;
      }
    }
  }
  for (int r = 0; r < 4; ++r)
    for (int v = 0; v < cols; ++v)
      std::memcpy(c + (i0 + r) * N + j0 + v * W, &acc[r][v], sizeof(vec));
}

// `widest`: the most vectors a block spans (4 needs the 32 registers of AVX-512: 16 sums, 4 rows
// of b, the broadcast and its products).
template <int W, int widest>
[[gnu::always_inline]] inline void product(const float* a, const float* b, const float* acc,
                                           float* c, int M, int N, int K) {
  int j0 = 0;
  if constexpr (widest >= 4)
    for (; j0 + 4 * W <= N; j0 += 4 * W)
      for (int i0 = 0; i0 < M; i0 += 4) block<W, 4>(a, b, acc, c, N, K, i0, j0);
  for (; j0 + 2 * W <= N; j0 += 2 * W)
    for (int i0 = 0; i0 < M; i0 += 4) block<W, 2>(a, b, acc, c, N, K, i0, j0);
  for (; j0 < N; j0 += W)
    for (int i0 = 0; i0 < M; i0 += 4) block<W, 1>(a, b, acc, c, N, K, i0, j0);
}

#if defined(__x86_64__)
[[gnu::target("avx512f")]] void product_avx512(const float* a, const float* b, const float* acc,
                                               float* c, int M, int N, int K) {
  product<16, 4>(a, b, acc, c, M, N, K);
}

[[gnu::target("avx2")]] void product_avx2(const float* a, const float* b, const float* acc,
                                          float* c, int M, int N, int K) {
  product<8, 2>(a, b, acc, c, M, N, K);
}
#endif

void product_sse2(const float* a, const float* b, const float* acc, float* c, int M, int N,
                  int K) {
  product<4, 2>(a, b, acc, c, M, N, K);
}

using product_fn = void (*)(const float*, const float*, const float*, float*, int, int, int);

product_fn best_product() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return product_avx512;
  if (__builtin_cpu_supports("avx2")) return product_avx2;
#endif
  return product_sse2;
}

}  // namespace

void dot_accumulate(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K) {
  static const product_fn product = best_product();
  product(a, b, acc, c, M, N, K);
}

}  // namespace tl::sim
