// e^x for float lanes, the same bits on every machine and for every vector width.
//
// The algorithm is glibc's expf (by Szabolcs Nagy, Arm's optimized-routines): x / ln 2 split into
// k / 32 + r, 2^(k/32) from a table of 32 doubles, a cubic polynomial for 2^(r/32), all in double
// precision with its fused multiply-adds written out as std::fma, which IEEE 754 defines exactly.
// It gives the bits of glibc's expf on x86-64 with FMA (checked on every one of the 2^32 floats),
// so kernels compute what they computed with the C library's expf, and now on every machine, in
// loops the compiler vectorizes, and without the C library's errno handling on underflow.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tl::sim {

namespace exp_detail {

inline constexpr double inv_ln2_n = 0x1.71547652b82fep+0 * 32;
inline constexpr double shift = 0x1.8p+52;
inline constexpr double c0 = 0x1.c6af84b912394p-5 / 32 / 32 / 32;
inline constexpr double c1 = 0x1.ebfce50fac4f3p-3 / 32 / 32;
inline constexpr double c2 = 0x1.62e42ff0c52d6p-1 / 32;
inline constexpr float overflows_above = 0x1.62e42ep6f;    // log(2^128)
inline constexpr float underflows_below = -0x1.9fe368p6f;  // log(2^-150)

// The bits of 2^(i/32) rounded to double, less i << 47, so that adding k << 47 for k = i mod 32
// gives 2^(k/32).
alignas(64) inline constexpr std::uint64_t table[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};

// Without branches, so that a loop over lanes vectorizes: every lane takes the main path, whose
// result the special cases then replace.
[[gnu::always_inline]] inline float exp_lane(float x) {
  const double xd = x;
  double kd = std::fma(inv_ln2_n, xd, shift);
  std::uint64_t ki;
  std::memcpy(&ki, &kd, sizeof ki);
  kd -= shift;
  const double r = std::fma(inv_ln2_n, xd, -kd);
  const std::uint64_t t = table[ki % 32] + (ki << 47);
  double s;
  std::memcpy(&s, &t, sizeof s);
  const double z = std::fma(c0, r, c1);
  const double r2 = r * r;
  double y = std::fma(c2, r, 1.0);
  y = std::fma(z, r2, y);
  y = y * s;
  const float quiet = x + x;  // x itself when it is a number that large; NaN stays NaN, quietly
  float e = static_cast<float>(y);
  e = x > overflows_above ? std::numeric_limits<float>::infinity() : e;
  e = x < underflows_below ? 0.0f : e;  // also -inf
  e = x != x ? quiet : e;               // NaN
  return e;
}

}  // namespace exp_detail

// e^x for one lane.
inline float exp_lane(float x) { return exp_detail::exp_lane(x); }

// y[i] = exp_lane(x[i]) for n lanes, vectorized with the widest instructions the CPU has.
void exp_lanes(const float* x, float* y, long long n);

}  // namespace tl::sim
