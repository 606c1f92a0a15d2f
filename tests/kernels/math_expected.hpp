// What docs/tl.md promises for the MathFunctions kernel (tests/kernels/math.hpp), as host code
// shared by the simulator test and the GPU parity test: the inputs, and a checker that lists every
// output that breaks the promise. The promise is the same on both backends (tl computes these
// functions itself, the same bits on each): rsqrt, sqrt, floor, ceil and fma exact; sigmoid,
// tanh, erf, log1p and pow within 1 ulp of the exact value (here: of the double-precision C
// library's, rounded to float), with their special cases exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test_kernels::math {

inline constexpr int N = 256;
inline constexpr float nan = std::numeric_limits<float>::quiet_NaN();
inline constexpr float inf = std::numeric_limits<float>::infinity();

struct inputs {
  std::vector<float> a, b, c;
};

// a: the special cases first (pow's x with b's y beside them), then seeded values of every
// magnitude and sign; c: seeded, with the addends that cancel a * b.
inline inputs make_inputs() {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float big = std::numeric_limits<float>::max();
  inputs in;
  in.a = {nan,   -nan,  0.0f,  -0.0f, inf,  -inf, 1.0f,  -1.0f, -1.5f, 2.0f,  0.5f,   -0.5f,
          tiny,  -tiny, 1e-30f, -1e-30f, big, -big, 100.0f, -100.0f, 9.0f, -9.0f, 3.9f, -4.5f,
          0.0f,  -0.0f, -0.0f, 0.0f, -2.0f, -2.0f, -inf, -inf, 1.0f, -1.0f, 0.25f, 4.0f,
          1e-3f, -0.29f, 0.41f, 1e6f, 88.0f, -104.0f, 0.1f, -0.1f, 1.0f / 3, 16.5f, -7.25f, 2.5f};
  in.b = {0.0f,  2.0f,  -3.0f, -3.0f, -0.5f, 3.0f, nan,   inf,  0.5f,  -149.5f, 128.0f, -0.0f,
          -1.0f, 1.0f,  2.0f,   3.0f,   2.0f,  -2.0f, 20.0f, 19.0f, -inf,  inf,  1e10f, -1e10f,
          -2.0f, 0.5f,  5.0f,   -0.5f,  3.0f,  2.5f,  -3.0f, 4.0f, -inf,  -inf,  inf,  -inf,
          1.5f, 7.0f, -2.5f, 1.0f / 3, 0.75f, -1.25f, 31.0f, -31.0f, 3.0f, 2.0f, 5.0f, -3.0f};
  std::mt19937 random(7);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 8);
  while (in.a.size() < static_cast<std::size_t>(N)) {
    in.a.push_back(std::ldexp(mantissa(random), exponent(random)));
    in.b.push_back(std::ldexp(mantissa(random), exponent(random) / 4));
  }
  for (int i = 0; i < N; ++i) {
    const float m = mantissa(random);
    // Every fourth addend cancels the product but for its rounding error, which only a fused
    // multiply-add keeps.
    in.c.push_back(i % 4 == 3 ? -(in.a[i] * in.b[i]) : std::ldexp(m, exponent(random)));
  }
  return in;
}

inline bool same_float(float x, float y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;  // -0 and +0 differ
}

// Floats in order as integers, -0 just below +0: their difference counts ulps.
inline std::int64_t ordered(float f) {
  std::int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) - 1 : i;
}

// Within 1 ulp of the exact value `want` (a double): NaN where it is NaN; where its float is an
// infinity or a zero, exactly that (the sign of a zero included); otherwise one of the two floats
// around it.
inline bool within_one_ulp(float got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  const float w = static_cast<float>(want);
  if (std::isinf(w) || w == 0.0f) return same_float(got, w);
  if (std::isnan(got)) return false;
  const std::int64_t d = ordered(got) - ordered(w);
  return d >= -1 && d <= 1;
}

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Every output of z that breaks the promise, described; empty when all hold.
inline std::vector<std::string> mismatches(const inputs& in, const std::vector<float>& z) {
  std::vector<std::string> out;
  auto report = [&](const char* what, int i, float got, double want) {
    std::ostringstream s;
    s.precision(9);
    s << what << "[" << i << "] (a = " << in.a[i] << ", b = " << in.b[i] << ", c = " << in.c[i]
      << "): got " << got << ", expected " << want;
    out.push_back(s.str());
  };
  for (int i = 0; i < N; ++i) {
    const float a = in.a[i], b = in.b[i], c = in.c[i];
    const double x = a;
    auto near = [&](int f, const char* what, double want) {
      if (!within_one_ulp(z[f * N + i], want)) report(what, i, z[f * N + i], want);
    };
    auto exact = [&](int f, const char* what, float want) {
      if (!same_float(z[f * N + i], want)) report(what, i, z[f * N + i], want);
    };
    near(0, "sigmoid", sigmoid(x));
    near(1, "tanh", std::tanh(x));
    near(2, "erf", std::erf(x));
    near(3, "log1p", std::log1p(x));
    exact(4, "rsqrt", 1.0f / std::sqrt(a));
    exact(5, "sqrt", std::sqrt(a));
    exact(6, "floor", std::floor(a));
    exact(7, "ceil", std::ceil(a));
    near(8, "pow", std::pow(x, static_cast<double>(b)));
    exact(9, "fma", std::fma(a, b, c));
  }
  return out;
}

}  // namespace test_kernels::math
