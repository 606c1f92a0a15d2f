#include "simulator/exp.hpp"

namespace tl::sim {

namespace {

[[gnu::always_inline]] inline void exp_loop(const float* x, float* y, long long n) {
  for (long long i = 0; i < n; ++i) y[i] = exp_detail::exp_lane(x[i]);
}

#if defined(__x86_64__)
[[gnu::target("avx512f,avx512dq")]] void exp_avx512(const float* x, float* y, long long n) {
  exp_loop(x, y, n);
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

namespace tl::cpu {
float exp_lane(float x) { return sim::exp_lane(x); }
}  // namespace tl::cpu
