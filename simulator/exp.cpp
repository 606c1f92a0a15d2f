#include "simulator/exp.hpp"
#include "simulator/front_hooks.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
// GCC 12 warns inside immintrin.h that the "undefined" vectors some intrinsics start from are
// uninitialized: they are meant to be.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace tl::sim {

namespace {

[[gnu::always_inline]] inline void exp_loop(const float* x, float* y, long long n) {
  for (long long i = 0; i < n; ++i) y[i] = exp_detail::exp_lane(x[i]);
}

#if defined(__x86_64__)
// exp_detail::exp_lane for 8 lanes, each step the same IEEE operation. The compiler's version of
// the loop looks up the table with gathers, which are slow on recent Intel CPUs; here the 32
// entries sit in four registers and two permutes pick them.
[[gnu::target("avx512f,avx512dq"), gnu::always_inline]] inline __m256 exp8_avx512(
    __m256 xf, const __m512d* table_rows) {
  using namespace exp_detail;
  const __m512d xd = _mm512_cvtps_pd(xf);
  const __m512d inv = _mm512_set1_pd(inv_ln2_n), sh = _mm512_set1_pd(shift);
  __m512d kd = _mm512_fmadd_pd(inv, xd, sh);
  const __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, sh);
  const __m512d r = _mm512_fmsub_pd(inv, xd, kd);  // fma(inv, x, -kd)
  const __m512i i = _mm512_and_si512(ki, _mm512_set1_epi64(31));
  const __m512d low = _mm512_permutex2var_pd(table_rows[0], i, table_rows[1]);
  const __m512d high = _mm512_permutex2var_pd(table_rows[2], i, table_rows[3]);
  const __mmask8 upper = _mm512_test_epi64_mask(i, _mm512_set1_epi64(16));
  const __m512i t = _mm512_add_epi64(_mm512_castpd_si512(_mm512_mask_blend_pd(upper, low, high)),
                                     _mm512_slli_epi64(ki, 47));
  const __m512d s = _mm512_castsi512_pd(t);
  const __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(c0), r, _mm512_set1_pd(c1));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d e = _mm512_fmadd_pd(_mm512_set1_pd(c2), r, _mm512_set1_pd(1.0));
  e = _mm512_fmadd_pd(z, r2, e);
  e = _mm512_mul_pd(e, s);
  return _mm512_cvtpd_ps(e);
}

[[gnu::target("avx512f,avx512dq")]] void exp_avx512(const float* x, float* y, long long n) {
  using namespace exp_detail;
  const __m512d table_rows[4] = {
      _mm512_loadu_pd(reinterpret_cast<const double*>(table)),
      _mm512_loadu_pd(reinterpret_cast<const double*>(table + 8)),
      _mm512_loadu_pd(reinterpret_cast<const double*>(table + 16)),
      _mm512_loadu_pd(reinterpret_cast<const double*>(table + 24))};
  const __m512 over = _mm512_set1_ps(overflows_above), under = _mm512_set1_ps(underflows_below);
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  long long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 xv = _mm512_loadu_ps(x + i);
    const __m256 lo = exp8_avx512(_mm512_castps512_ps256(xv), table_rows);
    const __m256 hi =
        exp8_avx512(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(xv), 1)), table_rows);
    __m512 e = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(xv, over, _CMP_GT_OQ), inf);
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(xv, under, _CMP_LT_OQ), _mm512_setzero_ps());
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(xv, xv, _CMP_UNORD_Q), _mm512_add_ps(xv, xv));
    _mm512_storeu_ps(y + i, e);
  }
  for (; i < n; ++i) y[i] = exp_detail::exp_lane(x[i]);
}

[[gnu::target("avx2,fma")]] void exp_avx2(const float* x, float* y, long long n) {
  exp_loop(x, y, n);
}
#endif

void exp_plain(const float* x, float* y, long long n) { exp_loop(x, y, n); }

using exp_fn = void (*)(const float*, float*, long long);

exp_fn best_exp() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return exp_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return exp_avx2;
#endif
  return exp_plain;
}

}  // namespace

void exp_lanes(const float* x, float* y, long long n) {
  static const exp_fn exp = best_exp();
  exp(x, y, n);
}

}  // namespace tl::sim

namespace tl::cpu::backend {
float exp_lane(float x) { return sim::exp_lane(x); }
}  // namespace tl::cpu::backend
