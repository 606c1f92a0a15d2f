// e^t in double precision from correctly rounded operations only (tile/math/rounded.hpp), so that
// the functions built on it (tl::sigmoid, tl::tanh, tl::pow, tl::erf) give the same bits on both
// backends.
//
// t = k ln 2 + r with |r| <= ln 2 / 2, k an integer (ln 2 in two parts, the first with enough
// trailing zeros that k times it is exact); e^r - 1 from its Taylor series to degree 13, whose
// remainder is below 4e-18; then 2^k. About 2^-52 relative error in all: far below a float's half
// ulp (2^-25), so the float a caller rounds to is the correctly rounded one except where e^t lies
// within that error of the midpoint between two floats.
#pragma once

#include "tile/config.hpp"
#include "tile/math/rounded.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

// e^r - 1 for |r| <= 0.35, without the cancellation of e^r - 1: r + r^2 (1/2! + r/3! + ...).
TL_FN double expm1_reduced(double r) {
  double q = 0x1.6124613a86d09p-33;  // 1/13!
  q = mul_add(q, r, 0x1.1eed8eff8d898p-29);  // 1/12!
  q = mul_add(q, r, 0x1.ae64567f544e4p-26);
  q = mul_add(q, r, 0x1.27e4fb7789f5cp-22);
  q = mul_add(q, r, 0x1.71de3a556c734p-19);
  q = mul_add(q, r, 0x1.a01a01a01a01ap-16);
  q = mul_add(q, r, 0x1.a01a01a01a01ap-13);
  q = mul_add(q, r, 0x1.6c16c16c16c17p-10);
  q = mul_add(q, r, 0x1.1111111111111p-7);
  q = mul_add(q, r, 0x1.5555555555555p-5);
  q = mul_add(q, r, 0x1.5555555555555p-3);  // 1/3!
  q = mul_add(q, r, 0x1.0000000000000p-1);  // 1/2!
  return mul_add(mul(r, r), q, r);
}

// e^t for -700 <= t <= 700 (callers clamp: every float result is decided well inside).
TL_FN double exp_core(double t) {
  constexpr double inv_ln2 = 0x1.71547652b82fep+0;
  constexpr double ln2_hi = 0x1.62e42fee00000p-1;  // 21 trailing zero bits
  constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
  constexpr double shifter = 0x1.8p52;  // adding it rounds to an integer
  const double kd = sub(add(mul(t, inv_ln2), shifter), shifter);
  const double r = sub(sub(t, mul(kd, ln2_hi)), mul(kd, ln2_lo));
  return mul(add(1.0, expm1_reduced(r)), pow2(static_cast<int>(kd)));
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
