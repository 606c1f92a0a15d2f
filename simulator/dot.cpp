#include "simulator/dot.hpp"

#include <cmath>
#include <cstring>
#include <initializer_list>

#if defined(__x86_64__)
#include <immintrin.h>
// The templates below pass AVX and AVX-512 vectors by value; they are inlined (gnu::flatten)
// into the functions compiled for those sets, so no call ever passes one.
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace tl::sim {

namespace {

// The operations a register block needs, on W lanes. `fma` is IEEE 754's fusedMultiplyAdd in
// every lane (x * y + z with one rounding): the same bits from every instruction set, so each
// set's `fma` must be an exact one, never a multiplication and an addition.

// Any machine: 4 lanes of GCC's vector extensions, each lane's fma by std::fma (an instruction
// where the target has one, glibc's exact software fmaf elsewhere).
struct portable_lanes {
  static constexpr int width = 4;
  typedef float vec __attribute__((vector_size(4 * sizeof(float))));
  [[gnu::always_inline]] static vec load(const float* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  [[gnu::always_inline]] static void store(float* p, vec v) { std::memcpy(p, &v, sizeof v); }
  [[gnu::always_inline]] static vec broadcast(float x) { return vec{} + x; }
  [[gnu::always_inline]] static vec fma(vec x, vec y, vec z) {
    vec r;
    for (int l = 0; l < width; ++l) r[l] = std::fma(x[l], y[l], z[l]);
    return r;
  }
};

#if defined(__x86_64__)
struct avx512_lanes {
  static constexpr int width = 16;
  using vec = __m512;
  [[gnu::target("avx512f")]] static vec load(const float* p) {
    return _mm512_loadu_ps(p);
  }
  [[gnu::target("avx512f")]] static void store(float* p, vec v) {
    _mm512_storeu_ps(p, v);
  }
  [[gnu::target("avx512f")]] static vec broadcast(float x) {
    return _mm512_set1_ps(x);
  }
  [[gnu::target("avx512f")]] static vec fma(vec x, vec y, vec z) {
    return _mm512_fmadd_ps(x, y, z);
  }
};

struct avx2_lanes {
  static constexpr int width = 8;
  using vec = __m256;
  [[gnu::target("avx2,fma")]] static vec load(const float* p) {
    return _mm256_loadu_ps(p);
  }
  [[gnu::target("avx2,fma")]] static void store(float* p, vec v) {
    _mm256_storeu_ps(p, v);
  }
  [[gnu::target("avx2,fma")]] static vec broadcast(float x) {
    return _mm256_set1_ps(x);
  }
  [[gnu::target("avx2,fma")]] static vec fma(vec x, vec y, vec z) {
    return _mm256_fmadd_ps(x, y, z);
  }
};
#endif

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

#if defined(__x86_64__)
// flatten: the lanes' functions, compiled for the set, are inlined here through the templates.
[[gnu::target("avx512f"), gnu::flatten]] void product_avx512(const float* a, const float* b,
                                                             const float* acc, float* c, int M,
                                                             int N, int K) {
  product<avx512_lanes, 4>(a, b, acc, c, M, N, K);
}

[[gnu::target("avx2,fma"), gnu::flatten]] void product_avx2(const float* a, const float* b,
                                                            const float* acc, float* c, int M,
                                                            int N, int K) {
  product<avx2_lanes, 2>(a, b, acc, c, M, N, K);
}
#endif

void product_portable(const float* a, const float* b, const float* acc, float* c, int M, int N,
                      int K) {
  product<portable_lanes, 2>(a, b, acc, c, M, N, K);
}

using product_fn = void (*)(const float*, const float*, const float*, float*, int, int, int);

product_fn product_for(dot_instructions set) {
  switch (set) {
#if defined(__x86_64__)
    case dot_instructions::avx512: return product_avx512;
    case dot_instructions::avx2: return product_avx2;
#endif
    default: return product_portable;
  }
}

product_fn best_product() {
  for (auto set : {dot_instructions::avx512, dot_instructions::avx2})
    if (dot_instructions_available(set)) return product_for(set);
  return product_portable;
}

}  // namespace

bool dot_instructions_available(dot_instructions set) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (set) {
    case dot_instructions::avx512: return __builtin_cpu_supports("avx512f");
    case dot_instructions::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case dot_instructions::portable: return true;
  }
#endif
  return set == dot_instructions::portable;
}

void dot_accumulate(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K) {
  static const product_fn product = best_product();
  product(a, b, acc, c, M, N, K);
}

void dot_accumulate(dot_instructions set, const float* a, const float* b, const float* acc,
                    float* c, int M, int N, int K) {
  product_for(set)(a, b, acc, c, M, N, K);
}

}  // namespace tl::sim
