// ln u in double precision from correctly rounded operations only (tile/math/rounded.hpp), so that
// tl::log1p and tl::pow give the same bits on both backends.
//
// u = 2^e m with sqrt(1/2) <= m < sqrt(2) (from the bits: exact); ln m = 2 atanh(f) with
// f = (m - 1) / (m + 1), |f| <= 0.172, from atanh's series to f^23 (remainder below 1e-18).
// About 2^-51 relative error: the float a caller rounds to is the correctly rounded one except
// within that error of a midpoint.
#pragma once

#include <cstdint>

#include "tile/config.hpp"
#include "tile/math/rounded.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

// 2 atanh(f) = ln((1 + f) / (1 - f)) for |f| <= 0.18: 2f + 2f s (1/3 + s/5 + ...), s = f^2.
TL_FN double two_atanh(double f) {
  const double s = mul(f, f);
  double q = 0x1.47ae147ae147bp-5;  // 1/25
  q = mul_add(q, s, 0x1.642c8590b2164p-5);  // 1/23
  q = mul_add(q, s, 0x1.8618618618618p-5);
  q = mul_add(q, s, 0x1.af286bca1af28p-5);
  q = mul_add(q, s, 0x1.e1e1e1e1e1e1ep-5);
  q = mul_add(q, s, 0x1.1111111111111p-4);
  q = mul_add(q, s, 0x1.3b13b13b13b14p-4);
  q = mul_add(q, s, 0x1.745d1745d1746p-4);
  q = mul_add(q, s, 0x1.c71c71c71c71cp-4);
  q = mul_add(q, s, 0x1.2492492492492p-3);
  q = mul_add(q, s, 0x1.999999999999ap-3);  // 1/5
  q = mul_add(q, s, 0x1.5555555555555p-2);  // 1/3
  const double f2 = add(f, f);
  return mul_add(mul(f2, s), q, f2);
}

// ln u for a positive, finite, normal double u (every float but 0 is one).
TL_FN double log_core(double u) {
  constexpr double ln2_hi = 0x1.62e42fee00000p-1;
  constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
  constexpr std::uint64_t sqrt_half_bits = 0x3fe6a09e667f3bcdULL;  // sqrt(1/2), its mantissa
  const std::uint64_t b = bits_of(u);
  // Subtracting sqrt(1/2)'s bits makes the exponent field that of m's interval [sqrt(1/2), sqrt(2)).
  const std::int64_t shifted = static_cast<std::int64_t>(b - sqrt_half_bits);
  const int e = static_cast<int>(shifted >> 52);
  const double m = from_bits(b - (static_cast<std::uint64_t>(e) << 52));
  const double f = div(sub(m, 1.0), add(m, 1.0));
  const double ed = e;
  return add(mul(ed, ln2_hi), add(mul(ed, ln2_lo), two_atanh(f)));
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
