#include "simulator/dot.hpp"

#include <cmath>
#include <cstring>
#include <initializer_list>

#include "simulator/dot_block.hpp"

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

void product_portable(const float* a, const float* b, const float* acc, float* c, int M, int N,
                      int K) {
  dot_kernel::product<portable_lanes, 2>(a, b, acc, c, M, N, K);
}

using product_fn = void (*)(const float*, const float*, const float*, float*, int, int, int);

product_fn product_for(dot_instructions set) {
  switch (set) {
#if defined(__x86_64__)
    case dot_instructions::avx512: return dot_kernel::product_avx512;
    case dot_instructions::avx2: return dot_kernel::product_avx2;
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
