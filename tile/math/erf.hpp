// erf(a) in double precision from correctly rounded operations only (tile/math/rounded.hpp), so
// that tl::erf gives the same bits on both backends.
//
// W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev approximations for the error
// function", Math. Comp. 23 (1969) 631-637; Netlib's specfun/erf, CALERF), whose own error is far
// below double precision: for a <= 0.46875, erf(a) = a P(a^2) / Q(a^2) of degree 4; for
// 0.46875 < a <= 4, erfc(a) = e^(-a^2) R(a) / S(a) of degree 8 and erf = 1 - erfc (erfc < 0.51
// there, so no bits are lost). Beyond 4, erf rounds to 1 in float. The coefficients are Cody's,
// written as the hexadecimal doubles nearest his decimals so that no compiler's decimal parsing
// enters. A float a has an exact square in double, so e^(-a^2) (tile/math/exp.hpp) needs none of
// CALERF's splitting of a^2. A few 2^-53 of relative error in all, far below a float's half ulp.
#pragma once

#include "tile/config.hpp"
#include "tile/math/exp.hpp"
#include "tile/math/rounded.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

// erf(a) for 0 <= a <= 4, a a float.
TL_FN double erf_core(double a) {
  const double a2 = mul(a, a);
  if (a <= 0.46875) {
    double num = mul(0x1.7c7905a31c322p-3, a2);
    double den = a2;
    num = mul(add(num, 0x1.949fb3ed443e9p+1), a2);
    den = mul(add(den, 0x1.799ee342fb2dep+4), a2);
    num = mul(add(num, 0x1.c774e4d365da3p+6), a2);
    den = mul(add(den, 0x1.e80c9d57e55b8p+7), a2);
    num = mul(add(num, 0x1.797c38897528bp+8), a2);
    den = mul(add(den, 0x1.40a77529cadc8p+10), a2);
    return div(mul(a, add(num, 0x1.912c1535d121ap+11)), add(den, 0x1.63879423b87adp+11));
  }
  double num = mul(0x1.71e703c5f5815p-26, a);
  double den = a;
  num = mul(add(num, 0x1.20dd508eb103ep-1), a);
  den = mul(add(den, 0x1.f7d66f486ded5p+3), a);
  num = mul(add(num, 0x1.1c42c35b8bc02p+3), a);
  den = mul(add(den, 0x1.d6c69b0ffcde7p+6), a);
  num = mul(add(num, 0x1.087a0d1c420d0p+6), a);
  den = mul(add(den, 0x1.0c972e588749ep+9), a);
  num = mul(add(num, 0x1.2aa2986aba462p+8), a);
  den = mul(add(den, 0x1.9558eeca29d27p+10), a);
  num = mul(add(num, 0x1.b8f9e262b9fa3p+9), a);
  den = mul(add(den, 0x1.9b599356d1202p+11), a);
  num = mul(add(num, 0x1.ac030c15dc8d7p+10), a);
  den = mul(add(den, 0x1.10a9e7cb10e86p+12), a);
  num = mul(add(num, 0x1.0062821236f6bp+11), a);
  den = mul(add(den, 0x1.adebc3fc90dbdp+11), a);
  const double erfc = mul(div(add(num, 0x1.3395b7fd2fc8ep+10), add(den, 0x1.3395b7fd35f61p+10)),
                          exp_core(-a2));
  return sub(1.0, erfc);
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
