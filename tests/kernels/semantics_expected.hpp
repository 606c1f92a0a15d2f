// What docs/tl.md promises for the Semantics kernel (tests/kernels/semantics.hpp), as host code
// shared by the simulator test and the GPU parity test: the inputs, and a checker that lists
// every output that breaks the promise.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace test_kernels::semantics {

inline constexpr int N = 64;
inline constexpr float nan = std::numeric_limits<float>::quiet_NaN();
inline constexpr float inf = std::numeric_limits<float>::infinity();

struct inputs {
  std::vector<float> a, b;
};

// Rows of a (as [8, 8]): 0 and 1 hold NaN first, 2 mixes -0 and +0, 3 is all -0, 4 holds NaN
// last; the rest, and b, are ordinary numbers with infinities, zeros and exp's range ends.
inline inputs make_inputs() {
  inputs in;
  in.a = {nan, 1, -0.0f, 0.0f, -inf, inf, 2.5f, -3,                           // row 0
          nan, nan, 0.0f, -0.0f, 7, -7, 0.5f, 1e-3f,                          // row 1
          -0.0f, 0.0f, -0.0f, -0.0f, 0.0f, -0.0f, -0.0f, -0.0f,               // row 2
          -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f,             // row 3
          1, 2, 3, 4, 5, 6, 7, nan,                                           // row 4
          -100, -87.5f, -20, -1.5f, 0.1f, 10, 80, 88.5f,                      // row 5
          -0.3f, 0.7f, -1.25f, 3.75f, -9.5f, 12.25f, -15, 19.5f,              // row 6
          0.0625f, -0.015625f, 31.5f, -31.5f, 4.2f, -4.2f, 1.1f, -1.1f};      // row 7
  in.b = {1, nan, 0.0f, -0.0f, 1, -inf, nan, -4,
          nan, 2, -0.0f, 0.0f, 8, -8, 0.25f, -1e-3f,
          0.0f, -0.0f, 0.0f, 0.0f, -0.0f, 0.0f, 0.0f, 0.0f,
          1, 1, 1, 1, 1, 1, 1, 1,
          0, -1, 3, 5, 4, 7, 6, 2,
          3, -0.5f, 7, 1.5f, 0.3f, -3, 9, 11,
          0.1f, 0.7f, -2.5f, 1.75f, -0.25f, 6.125f, 3, -13,
          1e-30f, -1e30f, 3, -3, 4.2f, 4.2f, 1.1f, 1.1f};
  return in;
}

inline bool same_float(float x, float y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;  // -0 and +0 differ
}

inline float expect_maximum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return nan;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
inline float expect_minimum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return nan;
  if (a == b) return std::signbit(a) ? a : b;
  return b < a ? b : a;
}

// The math the simulator computes exactly (glibc's expf and exp2f, IEEE division), or within the
// GPU's stated error: relative 2^-21 for exp2 and division (ex2.approx.f32, div.full.f32), plus
// |x| 2^-23 for exp (x log2 e is rounded to float first).
enum class math { exact, gpu };

inline bool close(float got, double want, double relative) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == static_cast<float>(want);
  const double slack = 4 * std::ldexp(1.0, -149);  // a few subnormal steps
  const double bound = want == 0 ? 0 : relative * std::fabs(want);  // relative may be inf
  return std::fabs(got - want) <= bound + slack;
}

// Every output of z that breaks the promise, described; empty when all hold.
inline std::vector<std::string> mismatches(const inputs& in, const std::vector<float>& z,
                                           math m) {
  std::vector<std::string> out;
  auto report = [&](const char* what, int i, float got, double want) {
    std::ostringstream s;
    s << what << "[" << i << "] (a = " << in.a[i % N] << ", b = " << in.b[i % N]
      << "): got " << got << ", expected " << want;
    out.push_back(s.str());
  };
  for (int i = 0; i < N; ++i) {
    const float a = in.a[i], b = in.b[i];
    if (!same_float(z[i], expect_maximum(a, b))) report("maximum", i, z[i], expect_maximum(a, b));
    if (!same_float(z[N + i], expect_minimum(a, b)))
      report("minimum", i, z[N + i], expect_minimum(a, b));
    const float e = z[3 * N + i], e2 = z[4 * N + i], q = z[5 * N + i];
    if (m == math::exact) {
      if (!same_float(e, std::exp(a))) report("exp", i, e, std::exp(a));
      if (!same_float(e2, std::exp2(a))) report("exp2", i, e2, std::exp2(a));
      if (!same_float(q, a / b)) report("division", i, q, a / b);
    } else {
      const double x = a;
      if (!close(e, std::exp(x), std::ldexp(1.0, -21) + std::fabs(x) * std::ldexp(1.0, -23)))
        report("exp", i, e, std::exp(x));
      if (!close(e2, std::exp2(x), std::ldexp(1.0, -21))) report("exp2", i, e2, std::exp2(x));
      if (!close(q, x / b, std::ldexp(1.0, -21))) report("division", i, q, x / b);
    }
    if (z[6 * N + i] != static_cast<float>(i)) report("integers near the ends of int32", i, z[6 * N + i], i);
  }
  for (int r = 0; r < N / 8; ++r) {
    float mx = in.a[r * 8], mn = in.a[r * 8];
    for (int c = 1; c < 8; ++c) {
      mx = expect_maximum(mx, in.a[r * 8 + c]);
      mn = expect_minimum(mn, in.a[r * 8 + c]);
    }
    if (!same_float(z[2 * N + r], mx)) report("max<1> of row", r, z[2 * N + r], mx);
    if (!same_float(z[2 * N + N / 8 + r], mn)) report("min<1> of row", r, z[2 * N + N / 8 + r], mn);
  }
  return out;
}

}  // namespace test_kernels::semantics
