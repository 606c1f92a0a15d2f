// dot_accumulate's kernel on AVX2 (simulator/dot_block.hpp), this unit compiled with -mavx2 -mfma
// (CMakeLists.txt) and called only where the CPU has them (simulator/dot.cpp).
#if defined(__x86_64__)
#include <immintrin.h>

#include "simulator/dot_block.hpp"

namespace tl::sim::dot_kernel {

namespace {

struct avx2_lanes {
  static constexpr int width = 8;
  using vec = __m256;
  [[gnu::always_inline]] static vec load(const float* p) {
    return _mm256_loadu_ps(p);
  }
  [[gnu::always_inline]] static void store(float* p, vec v) {
    _mm256_storeu_ps(p, v);
  }
  [[gnu::always_inline]] static vec broadcast(float x) {
    return _mm256_set1_ps(x);
  }
  [[gnu::always_inline]] static vec fma(vec x, vec y, vec z) {
    return _mm256_fmadd_ps(x, y, z);
  }
};

}  // namespace

void product_avx2(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K) {
  product<avx2_lanes, 2>(a, b, acc, c, M, N, K);
}

}  // namespace tl::sim::dot_kernel
#endif
