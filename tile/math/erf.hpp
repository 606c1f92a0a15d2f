// erf(a) in double precision from correctly rounded operations only (tile/math/rounded.hpp), so
// that tl::erf gives the same bits on both backends.
//
// For 0 <= a <= 4 (beyond 4, erf rounds to 1 in float): erf(a) = 2/sqrt(pi) e^(-a^2) times the
// series sum over n of (2 a^2)^n a / (1 * 3 * ... * (2n + 1)), whose terms are all positive (no
// cancellation, unlike the alternating Taylor series), summed until a term is below 2^-56 of the
// sum (at most 60 terms, at a = 4). Each step rounds once: about 2^-46 relative error at a = 4,
// far below a float's half ulp.
#pragma once

#include "tile/config.hpp"
#include "tile/math/exp.hpp"
#include "tile/math/rounded.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

// erf(a) for 0 <= a <= 4, a a float (so a^2 is exact in double).
TL_FN double erf_core(double a) {
  constexpr double two_over_sqrt_pi = 0x1.20dd750429b6dp+0;
  const double a2 = mul(a, a);
  const double two_a2 = add(a2, a2);
  double term = a, sum = a;
  for (int n = 1; n <= 64; ++n) {
    // The ratio of consecutive terms does not depend on the last term: only a product and a sum
    // are on the loop's chain, and the division of the next steps overlaps them.
    term = mul(term, div(two_a2, static_cast<double>(2 * n + 1)));
    sum = add(sum, term);
    if (term <= mul(sum, 0x1p-56)) break;
  }
  return mul(mul(sum, exp_core(-a2)), two_over_sqrt_pi);
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
