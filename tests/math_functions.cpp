// tl's own elementwise functions (tile/lanes.hpp, tile/math/): within 1 ulp of the exact value over
// a sweep of all floats, checked by a test that fails on a function 2 ulp off (glibc's tanhf), and
// their special cases. The kernel of all of them is tests/semantics.cpp's.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/math_expected.hpp"
#include "tile/tl.hpp"

namespace {

namespace math = test_kernels::math;

struct sweep_result {
  long long inputs = 0, beyond_one_ulp = 0, not_nearest = 0;
  float worst = 0;
};

// f against the double-precision reference on every `step`-th float (NaN inputs aside).
template <class F, class R>
sweep_result sweep(F f, R reference, std::uint32_t step) {
  sweep_result s;
  for (std::uint64_t b = 0; b < (1ULL << 32); b += step) {
    const auto u = static_cast<std::uint32_t>(b);
    float x;
    std::memcpy(&x, &u, sizeof x);
    if (std::isnan(x)) continue;
    const float got = f(x);
    const double want = reference(static_cast<double>(x));
    ++s.inputs;
    if (!math::within_one_ulp(got, want)) {
      if (s.beyond_one_ulp++ == 0) s.worst = x;
    }
    if (!math::same_float(got, static_cast<float>(want))) ++s.not_nearest;
  }
  return s;
}

constexpr std::uint32_t step = 4099;  // about a million floats, every exponent and both signs

}  // namespace

TEST_CASE("sigmoid, tanh, erf and log1p are within 1 ulp of the exact value over a sweep of all "
          "floats",
          "[tl][math]") {
  struct function {
    const char* name;
    float (*f)(float);
    double (*reference)(double);
  };
  const function functions[] = {
      {"sigmoid", tl::lanes::float_sigmoid, math::sigmoid},
      {"tanh", tl::lanes::float_tanh, [](double x) { return std::tanh(x); }},
      {"erf", tl::lanes::float_erf, [](double x) { return std::erf(x); }},
      {"log1p", tl::lanes::float_log1p, [](double x) { return std::log1p(x); }},
  };
  for (const auto& fn : functions) {
    const auto s = sweep(fn.f, fn.reference, step);
    INFO(fn.name << ": " << s.inputs << " inputs, " << s.beyond_one_ulp << " beyond 1 ulp (first at "
                 << s.worst << "), " << s.not_nearest << " not the nearest float");
    CHECK(s.inputs > 1'000'000);
    CHECK(s.beyond_one_ulp == 0);
    // Computed in double: nearly always the correctly rounded float (none missed when written).
    CHECK(s.not_nearest <= s.inputs / 100'000);
  }
}

TEST_CASE("the sweep's check fails on a function 2 ulp off: glibc's tanhf", "[tl][math]") {
  const auto s = sweep([](float x) { return ::tanhf(x); }, [](double x) { return std::tanh(x); }, step);
  INFO(s.beyond_one_ulp << " beyond 1 ulp, " << s.not_nearest << " not the nearest float");
  CHECK(s.beyond_one_ulp > 0);
}

TEST_CASE("pow, sigmoid, tanh, erf and log1p keep their special cases", "[tl][math]") {
  const float inf = math::inf, nan = math::nan;
  CHECK(math::same_float(tl::lanes::float_tanh(-0.0f), -0.0f));
  CHECK(math::same_float(tl::lanes::float_erf(-0.0f), -0.0f));
  CHECK(math::same_float(tl::lanes::float_log1p(-0.0f), -0.0f));
  CHECK(tl::lanes::float_tanh(-inf) == -1.0f);
  CHECK(tl::lanes::float_erf(inf) == 1.0f);
  CHECK(tl::lanes::float_sigmoid(-inf) == 0.0f);
  CHECK(tl::lanes::float_sigmoid(inf) == 1.0f);
  CHECK(tl::lanes::float_sigmoid(0.0f) == 0.5f);
  CHECK(tl::lanes::float_log1p(-1.0f) == -inf);
  CHECK(std::isnan(tl::lanes::float_log1p(-1.5f)));
  CHECK(tl::lanes::float_pow(nan, 0.0f) == 1.0f);
  CHECK(tl::lanes::float_pow(1.0f, nan) == 1.0f);
  CHECK(tl::lanes::float_pow(-1.0f, inf) == 1.0f);
  CHECK(std::isnan(tl::lanes::float_pow(-8.0f, 1.0f / 3)));
  CHECK(tl::lanes::float_pow(-2.0f, 3.0f) == -8.0f);
  CHECK(math::same_float(tl::lanes::float_pow(-0.0f, 3.0f), -0.0f));
  CHECK(tl::lanes::float_pow(-0.0f, -3.0f) == -inf);
  CHECK(tl::lanes::float_pow(-0.0f, -2.0f) == inf);
  CHECK(math::same_float(tl::lanes::float_pow(-inf, -3.0f), -0.0f));
  CHECK(tl::lanes::float_pow(2.0f, 10.0f) == 1024.0f);  // exact where the power is a float
  CHECK(tl::lanes::float_pow(2.0f, -149.0f) == std::numeric_limits<float>::denorm_min());
  CHECK(tl::lanes::float_pow(10.0f, 39.0f) == inf);
  for (float x : {0.1f, 3.0f, 1e-20f, 7.5f})
    for (float y : {0.5f, -2.25f, 13.0f, 1e-3f}) {
      INFO("pow(" << x << ", " << y << ")");
      CHECK(math::within_one_ulp(tl::lanes::float_pow(x, y), std::pow(double(x), double(y))));
    }
}
