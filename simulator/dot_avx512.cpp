// dot_accumulate's kernel on AVX512 (simulator/dot_block.hpp), this unit compiled with -mavx512f
// (CMakeLists.txt) and called only where the CPU has them (simulator/dot.cpp).
#if defined(__x86_64__)
#include <immintrin.h>

#include "simulator/dot_block.hpp"

namespace tl::sim::dot_kernel {

namespace {

struct avx512_lanes {
  static constexpr int width = 16;
  using vec = __m512;
  [[gnu::always_inline]] static vec load(const float* p) {
    return _mm512_loadu_ps(p);
  }
  [[gnu::always_inline]] static void store(float* p, vec v) {
    _mm512_storeu_ps(p, v);
  }
  [[gnu::always_inline]] static vec broadcast(float x) {
    return _mm512_set1_ps(x);
  }
  [[gnu::always_inline]] static vec fma(vec x, vec y, vec z) {
    return _mm512_fmadd_ps(x, y, z);
  }
};

}  // namespace

void product_avx512(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K) {
  product<avx512_lanes, 4>(a, b, acc, c, M, N, K);
}

}  // namespace tl::sim::dot_kernel
#endif
