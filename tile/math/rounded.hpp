// Double-precision arithmetic with exactly one IEEE rounding per operation, on both backends: the
// ground on which tl's own functions (tile/math/exp.hpp, log.hpp, erf.hpp) compute the same bits
// in the simulator and on the GPU.
//
// Both sides round every +, -, *, / and fma of doubles to nearest even; what could differ is
// whether the compiler fuses a product into a following sum (one rounding instead of two). The
// simulator is compiled with -ffp-contract=off (CMakeLists.txt, cmake/puzzle_modules.cmake); nvcc
// fuses `a * b + c` by default, so on the GPU every product and sum here is an `_rn` intrinsic,
// which it never fuses. Nothing here depends on the C library.
#pragma once

#include <cstdint>
#include <cstring>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

TL_FN double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
TL_FN double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
TL_FN double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
TL_FN double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// a * b + c with two roundings: Horner's steps, the same on both backends.
TL_FN double mul_add(double a, double b, double c) { return add(mul(a, b), c); }

// 2^k as a double, for -1022 <= k <= 1023 (exact: the exponent field).
TL_FN double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

// The bits of a double, and a double from its bits.
TL_FN std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
TL_FN double from_bits(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
