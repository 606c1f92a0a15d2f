// tl::randint, tl::rand and tl::randn (docs/tl.md, "Random numbers"): Philox 4x32-10 against
// Random123's known answers, the three functions against the known answers of
// tests/kernels/random_expected.hpp (Triton's random.py, transcribed in NumPy) in the simulator,
// and the statistics of 10^5 draws. The GPU's side is tests/gpu/parity.cpp's.

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tests/kernels/math_expected.hpp"
#include "tests/kernels/random.hpp"
#include "tests/kernels/random_expected.hpp"

namespace {

namespace ka = test_kernels::random;

struct philox_known_answer {
  std::array<std::uint32_t, 4> counter;
  std::array<std::uint32_t, 2> key;
  std::array<std::uint32_t, 4> result;
};

// Random123's tests/kat_vectors, philox4x32 with 10 rounds: counter words, key words, result.
constexpr philox_known_answer random123_answers[] = {
    {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
     {0x00000000u, 0x00000000u},
     {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

struct drawn {
  std::vector<int> bits;
  std::vector<float> uniform, normal;
};

// RandomNumbers in the simulator for one seed at the given offsets.
drawn draw_at(int seed, std::vector<int> offsets) {
  constexpr int N = 16;
  REQUIRE(offsets.size() <= N);
  const int n = static_cast<int>(offsets.size());
  drawn d{std::vector<int>(n), std::vector<float>(n), std::vector<float>(n)};
  tl::sim::buffer bo("offsets", {n}, "int32", sizeof(int), offsets.data(), true);
  tl::sim::buffer bb("bits", {n}, "int32", sizeof(int), d.bits.data(), false);
  tl::sim::buffer bu("uniform", {n}, "float32", sizeof(float), d.uniform.data(), false);
  tl::sim::buffer bn("normal", {n}, "float32", sizeof(float), d.normal.data(), false);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bo, &bb, &bu, &bn}, [&] {
    test_kernels::RandomNumbers<N>{}(tl::ptr<const int>{&bo}, tl::ptr<int>{&bb},
                                     tl::ptr<float>{&bu}, tl::ptr<float>{&bn}, n, seed);
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  return d;
}

// RandomStream over n consecutive offsets from 0, in blocks of 1024, programs in `order`.
drawn stream(int seed, int n, tl::sim::order order = tl::sim::order::forward) {
  constexpr int B = 1024;
  drawn d{{}, std::vector<float>(n), std::vector<float>(n)};
  tl::sim::buffer bu("uniform", {n}, "float32", sizeof(float), d.uniform.data(), false);
  tl::sim::buffer bn("normal", {n}, "float32", sizeof(float), d.normal.data(), false);
  tl::sim::launch_options options;
  options.order = order;
  options.seed = 3;
  const auto r = tl::sim::run_grid({(n + B - 1) / B, 1, 1}, options, {&bu, &bn}, [&] {
    test_kernels::RandomStream<B>{}(tl::ptr<float>{&bu}, tl::ptr<float>{&bn}, n, seed);
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  return d;
}

struct moments {
  double mean = 0, variance = 0;
};
moments moments_of(const std::vector<float>& v) {
  moments m;
  for (float x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (float x : v) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= static_cast<double>(v.size() - 1);
  return m;
}

// Whether n draws' mean and variance are those of a distribution with the given ones (and the
// given fourth central moment), each within 5 standard errors: a false alarm about once in
// 10^6 runs, and the draws here are fixed by their seed anyway.
bool plausible(const std::vector<float>& v, double mean, double variance, double fourth_moment) {
  const auto m = moments_of(v);
  const double n = static_cast<double>(v.size());
  const double mean_error = std::sqrt(variance / n);
  const double variance_error = std::sqrt((fourth_moment - variance * variance) / n);
  return std::fabs(m.mean - mean) <= 5 * mean_error &&
         std::fabs(m.variance - variance) <= 5 * variance_error;
}
constexpr double uniform_mean = 0.5, uniform_variance = 1.0 / 12, uniform_fourth = 1.0 / 80;
constexpr double normal_mean = 0.0, normal_variance = 1.0, normal_fourth = 3.0;

struct cos_sweep {
  long long angles = 0, beyond_one_ulp = 0, not_nearest = 0;
};
// cos of one in 997 of the floats from 0 to 2 pi (randn's angles, 6.2831855f * u2; every
// exponent of them) against glibc's double cos.
template <class Cos>
cos_sweep sweep_cos(Cos cos_of) {
  cos_sweep s;
  const std::uint32_t end = std::bit_cast<std::uint32_t>(6.2831855f);
  for (std::uint32_t b = 0; b < end; b += 997) {
    const float t = std::bit_cast<float>(b);
    ++s.angles;
    const float got = static_cast<float>(cos_of(static_cast<double>(t)));
    const double want = std::cos(static_cast<double>(t));
    s.beyond_one_ulp += !test_kernels::math::within_one_ulp(got, want);
    s.not_nearest += !test_kernels::math::same_float(got, static_cast<float>(want));
  }
  return s;
}

}  // namespace

TEST_CASE("Philox 4x32-10 gives Random123's known answers", "[tl][random]") {
  for (const auto& k : random123_answers) {
    tl::math::philox_words c{{k.counter[0], k.counter[1], k.counter[2], k.counter[3]}};
    const auto got = tl::math::philox4x32_10(c, k.key[0], k.key[1]);
    for (int i = 0; i < 4; ++i) {
      INFO("counter word 0 0x" << std::hex << k.counter[0] << ", result word " << i);
      CHECK(got.w[i] == k.result[i]);
    }
  }
}

TEST_CASE("tl::randint, tl::rand and tl::randn give Triton's bits in the simulator, for every "
          "seed and offset of the known answers",
          "[tl][random]") {
  std::set<int> seeds;
  for (const auto& k : ka::known_answers) seeds.insert(k.seed);
  REQUIRE(seeds.size() >= 6);
  int rows = 0;
  for (int seed : seeds) {
    std::vector<int> offsets;
    std::vector<const ka::known_answer*> want;
    for (const auto& k : ka::known_answers)
      if (k.seed == seed) {
        offsets.push_back(k.offset);
        want.push_back(&k);
      }
    const auto got = draw_at(seed, offsets);
    for (std::size_t i = 0; i < offsets.size(); ++i, ++rows) {
      INFO("seed " << seed << ", offset " << offsets[i]);
      CHECK(static_cast<std::uint32_t>(got.bits[i]) == want[i]->randint);
      CHECK(std::bit_cast<std::uint32_t>(got.uniform[i]) == want[i]->rand_bits);
      CHECK(std::bit_cast<std::uint32_t>(got.normal[i]) == want[i]->randn_bits);
    }
  }
  CHECK(rows == static_cast<int>(std::size(ka::known_answers)));
}

// (No square bracket in a test's name: CMake's lists, through which ctest learns the names, take
// one as the start of a bracket argument and join the names that follow into one.)
TEST_CASE("tl::rand is at least 0 and below 1 at the ends of the bits, and tl::randn finite at "
          "the smallest uniform number",
          "[tl][random]") {
  // 0x7fffffff and 0x80000000 fold onto 2^31 - 1, the largest: its float is 2^31, times the
  // scale just below 1.
  CHECK(tl::math::uniform_float_of(0x7fffffffu) < 1.0f);
  CHECK(tl::math::uniform_float_of(0x80000000u) < 1.0f);
  CHECK(tl::math::uniform_float_of(0x7fffffffu) > 0.9999999f);
  CHECK(tl::math::uniform_float_of(0u) == 0.0f);
  CHECK(tl::math::uniform_float_of(0xffffffffu) == 0.0f);
  // A seed and offset whose first word folds to 0 need not exist; u1 = 0 is clamped to 1e-7
  // either way: sqrt(-2 ln 1e-7) = 5.68, the largest |randn|.
  const auto d = stream(11, 1 << 17);
  float largest = 0;
  for (float x : d.normal) {
    REQUIRE(std::isfinite(x));
    largest = std::max(largest, std::fabs(x));
  }
  CHECK(largest <= 5.7f);
  for (float u : d.uniform) {
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
  }
}

TEST_CASE("10^5 draws of tl::rand have the mean and variance of U(0, 1), of tl::randn those of "
          "N(0, 1), and each offset its own number",
          "[tl][random]") {
  const int n = 100'000;
  for (int seed : {0, 42, -7}) {
    INFO("seed " << seed);
    const auto d = stream(seed, n);
    const auto mu = moments_of(d.uniform), mn = moments_of(d.normal);
    INFO("rand: mean " << mu.mean << ", variance " << mu.variance << "; randn: mean " << mn.mean
                       << ", variance " << mn.variance);
    CHECK(plausible(d.uniform, uniform_mean, uniform_variance, uniform_fourth));
    CHECK(plausible(d.normal, normal_mean, normal_variance, normal_fourth));
    // Distinct offsets, distinct numbers: among 10^5 floats on a grid of 2^-24 .. 2^-31, a few
    // repeats are chance (the birthday bound), thousands would be blocks drawing alike.
    std::set<float> distinct(d.uniform.begin(), d.uniform.end());
    CHECK(distinct.size() > static_cast<std::size_t>(n - 2000));
  }
  // The checks fail on what is not so: u^2 (mean 1/3), 1.1 times the normal numbers (variance
  // 1.21), and two seeds' draws that are one (every block repeating the first's).
  const auto d = stream(42, n);
  std::vector<float> squared = d.uniform, wide = d.normal, repeated = d.uniform;
  for (auto& x : squared) x *= x;
  for (auto& x : wide) x *= 1.1f;
  for (int i = 1024; i < n; ++i) repeated[i] = repeated[i % 1024];
  CHECK_FALSE(plausible(squared, uniform_mean, uniform_variance, uniform_fourth));
  CHECK_FALSE(plausible(wide, normal_mean, normal_variance, normal_fourth));
  CHECK(std::set<float>(repeated.begin(), repeated.end()).size() <= 1024u);
}

TEST_CASE("tl::rand and tl::randn give the same bits in every program order and from a new "
          "seed other numbers",
          "[tl][random]") {
  const int n = 5000;
  const auto forward = stream(5, n);
  const auto reverse = stream(5, n, tl::sim::order::reverse);
  const auto shuffled = stream(5, n, tl::sim::order::shuffle);
  CHECK(forward.uniform == reverse.uniform);
  CHECK(forward.normal == shuffled.normal);
  const auto other = stream(6, n);
  int same = 0;
  for (int i = 0; i < n; ++i) same += forward.uniform[i] == other.uniform[i];
  CHECK(same < 5);
}

TEST_CASE("randn's cos is within 1 ulp of the exact value at every angle, nearly always the "
          "nearest float, and the sweep fails on a cos reduced by pi/2 in one part",
          "[tl][random]") {
  const auto s = sweep_cos([](double t) { return tl::math::cos_core(t); });
  INFO(s.angles << " angles, " << s.beyond_one_ulp << " beyond 1 ulp, " << s.not_nearest
                << " not the nearest float");
  CHECK(s.angles > 1'000'000);
  CHECK(s.beyond_one_ulp == 0);
  CHECK(s.not_nearest <= s.angles / 100'000);
  // Its twin: t - k pi/2 with pi/2's first 33 bits only, 6e-11 off per quarter turn, which
  // shows where cos is near zero.
  const auto one_part = sweep_cos([](double t) {
    const double k = std::nearbyint(t * 0x1.45f306dc9c883p-1);
    const double r = t - k * 0x1.921fb544p+0;
    switch (static_cast<int>(k) & 3) {
      case 0: return tl::math::cos_reduced(r);
      case 1: return -tl::math::sin_reduced(r);
      case 2: return -tl::math::cos_reduced(r);
      default: return tl::math::sin_reduced(r);
    }
  });
  INFO(one_part.beyond_one_ulp << " beyond 1 ulp with pi/2 in one part");
  CHECK(one_part.beyond_one_ulp > 0);
}
