// sin t and cos t in double precision from correctly rounded operations only
// (tile/math/rounded.hpp), for |t| <= 8: what tl::randn's Box-Muller step needs (an angle in
// [0, 2 pi)), the same bits on both backends.
//
// t = k pi/2 + r with |r| <= pi/4 + 2^-40, k an integer (pi/2 in two parts, the first with 33
// significant bits, so k times it is exact for |k| < 2^20, as in fdlibm's __ieee754_rem_pio2);
// sin r and cos r from their Taylor series to degree 19 and 20 (remainders below 1e-21); then the
// quadrant. About 2^-52 relative error where the result is not tiny, far below a float's half ulp.
#pragma once

#include "tile/config.hpp"
#include "tile/math/rounded.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

// sin r for |r| <= pi/4: r + r^3 (-1/3! + r^2/5! - ...).
TL_FN double sin_reduced(double r) {
  const double s = mul(r, r);
  double q = -0x1.2f49b46814157p-57;  // -1/19!
  q = mul_add(q, s, 0x1.952c77030ad4ap-49);  // 1/17!
  q = mul_add(q, s, -0x1.ae7f3e733b81fp-41);  // -1/15!
  q = mul_add(q, s, 0x1.6124613a86d09p-33);  // 1/13!
  q = mul_add(q, s, -0x1.ae64567f544e4p-26);  // -1/11!
  q = mul_add(q, s, 0x1.71de3a556c734p-19);  // 1/9!
  q = mul_add(q, s, -0x1.a01a01a01a01ap-13);  // -1/7!
  q = mul_add(q, s, 0x1.1111111111111p-7);  // 1/5!
  q = mul_add(q, s, -0x1.5555555555555p-3);  // -1/3!
  return mul_add(mul(r, s), q, r);
}

// cos r for |r| <= pi/4: 1 - r^2 (1/2! - r^2/4! + ...).
TL_FN double cos_reduced(double r) {
  const double s = mul(r, r);
  double q = -0x1.e542ba4020225p-62;  // -1/20!
  q = mul_add(q, s, 0x1.6827863b97d97p-53);  // 1/18!
  q = mul_add(q, s, -0x1.ae7f3e733b81fp-45);  // -1/16!
  q = mul_add(q, s, 0x1.93974a8c07c9dp-37);  // 1/14!
  q = mul_add(q, s, -0x1.1eed8eff8d898p-29);  // -1/12!
  q = mul_add(q, s, 0x1.27e4fb7789f5cp-22);  // 1/10!
  q = mul_add(q, s, -0x1.a01a01a01a01ap-16);  // -1/8!
  q = mul_add(q, s, 0x1.6c16c16c16c17p-10);  // 1/6!
  q = mul_add(q, s, -0x1.5555555555555p-5);  // -1/4!
  q = mul_add(q, s, 0x1.0000000000000p-1);  // 1/2!
  return sub(1.0, mul(s, q));
}

// The quadrant k (mod 4) and the remainder r of t = k pi/2 + r, for |t| <= 8.
struct quadrant_reduced {
  int k;
  double r;
};
TL_FN quadrant_reduced reduce_quarter_turns(double t) {
  constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
  constexpr double pio2_hi = 0x1.921fb544p+0;         // pi/2's first 33 bits
  constexpr double pio2_lo = 0x1.0b4611a626331p-34;   // pi/2 - pio2_hi
  constexpr double shifter = 0x1.8p52;                // adding it rounds to an integer
  const double kd = sub(add(mul(t, two_over_pi), shifter), shifter);
  const double r = sub(sub(t, mul(kd, pio2_hi)), mul(kd, pio2_lo));
  return {static_cast<int>(kd) & 3, r};
}

TL_FN double cos_core(double t) {
  const auto q = reduce_quarter_turns(t);
  switch (q.k) {
    case 0: return cos_reduced(q.r);
    case 1: return -sin_reduced(q.r);
    case 2: return -cos_reduced(q.r);
    default: return sin_reduced(q.r);
  }
}

TL_FN double sin_core(double t) {
  const auto q = reduce_quarter_turns(t);
  switch (q.k) {
    case 0: return sin_reduced(q.r);
    case 1: return cos_reduced(q.r);
    case 2: return -sin_reduced(q.r);
    default: return -cos_reduced(q.r);
  }
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
