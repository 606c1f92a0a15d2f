// GPU parity of tl::dot in every operand precision: a matmul kernel (tests/kernels/dot_precision.hpp)
// gives the simulator's result on the backend under test (the GPU, or its host emulation), on
// ragged shapes, within the tolerance docs/tl.md states for each precision:
//
//   float32 (tl::ieee, the default)  one fused multiply-add per k, in order of k, from acc, on
//                                    both (the simulator's fma, the GPU's FFMA): to the bit, for
//                                    any operands. Random operands make most elements differ
//                                    from a multiplication then an addition (the test checks
//                                    that too), so a backend that rounds each product fails
//   float32 with tl::tf32            both round the operands to TF32 the same way; the sums then
//                                    differ by at most (K + 1) * 2^-21 * sum_k |a * b| (the
//                                    tensor cores sum in their own order and truncate)
//   float16, bfloat16                products exact on both; the same bound for the sums
//   int8, uint8                      exact int32 sums on both: equal, and equal to the host's
//
// The TF32 cases are built so that a wrong rounding fails: operands t * (1 + 2^-13) (t exact in
// TF32) whose rounding moves every product the same way, by far more than the tolerance (the test
// checks that too), and a K = 16 product with the identity that returns each operand rounded, to
// the bit: ties (away from zero, not to even), the largest float (to infinity), NaN and infinity.
#include <catch2/catch.hpp>

#include <array>
#include <cfloat>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "checker/sim_launch.hpp"
#include "tests/gpu/only_where_built.hpp"
#include "tests/gpu/test_kernels.hpp"
#include "tile/precision.hpp"

#ifndef TILEPUZZLES_UNDER_TEST
#error "define TILEPUZZLES_UNDER_TEST (\"the GPU\" or \"the GPU's host emulation\")"
#endif

namespace {

using tp::gpu_tests::kernels_under_test;

template <class K>
struct kernel_traits;
template <class T, class P, int B0, int B1, int BK, int W>
struct kernel_traits<test_kernels::MatmulPrecision<T, P, B0, B1, BK, W>> {
  static constexpr bool tf32 = std::is_same_v<P, tl::tf32_t>;
  static constexpr bool exact = std::is_same_v<T, float> && !tf32;
  static constexpr bool integer = false;
  static constexpr tp::dtype dtype = std::is_same_v<T, tl::float16>    ? tp::dtype::float16
                                     : std::is_same_v<T, tl::bfloat16> ? tp::dtype::bfloat16
                                                                       : tp::dtype::float32;
};

template <class T, int B0, int B1, int BK, int W>
struct kernel_traits<test_kernels::MatmulInteger<T, B0, B1, BK, W>> {
  static constexpr bool tf32 = false, exact = false, integer = true;
  static constexpr tp::dtype dtype = std::is_same_v<T, tl::int8> ? tp::dtype::int8 : tp::dtype::uint8;
};

template <class T, int B0, int B1, int BK, int W, bool F>
struct kernel_traits<test_kernels::MatmulDeclaredA<T, B0, B1, BK, W, F>>
    : kernel_traits<test_kernels::MatmulPrecision<T, tl::ieee_t, B0, B1, BK, W>> {};

template <class T, int B0, int BK, int W, int S>
struct kernel_traits<test_kernels::LoopInvariantA<T, B0, BK, W, S>>
    : kernel_traits<test_kernels::MatmulPrecision<T, tl::ieee_t, B0, BK, BK, W>> {};

template <class T, class P, int B0, int B1, int BK, int W, bool TA>
struct kernel_traits<test_kernels::MatmulTrans<T, P, B0, B1, BK, W, TA>>
    : kernel_traits<test_kernels::MatmulPrecision<T, P, B0, B1, BK, W>> {};

struct problem {
  int n0, n1, mid;
  std::vector<float> x, y;  // [n0, mid], [mid, n1]
};

// Runs z = x @ y through the simulator (gpu == false) or the backend under test.
template <class Kernel>
std::vector<float> run(const problem& p, const std::string& name, bool gpu, std::string& error) {
  constexpr tp::dtype operands = kernel_traits<Kernel>::dtype;
  std::vector<tp::tensor> tensors = {
      {"x", {p.n0, p.mid}, p.x, false, operands},
      {"y", {p.mid, p.n1}, p.y, false, operands},
      {"z", {p.n0, p.n1}, std::vector<float>(static_cast<std::size_t>(p.n0) * p.n1, NAN), true}};
  tp::launch_request request;
  request.grid = {(p.n0 + Kernel::block_rows - 1) / Kernel::block_rows,
                  (p.n1 + Kernel::block_cols - 1) / Kernel::block_cols, 1};
  request.tensors = &tensors;
  request.sizes = {p.n0, p.n1, p.mid};
  if (!gpu) {
    const auto outcome = tp::sim_launch<Kernel>(request, {});
    if (outcome.result.error) error = "the simulator: " + outcome.result.error->message;
  } else {
    const auto& table = kernels_under_test().tests;
    const auto it = table.find(name);
    if (it == table.end()) error = "no kernel " + name + " on " TILEPUZZLES_UNDER_TEST;
    else error = it->second(request);
  }
  return tensors.back().values;
}

// z = x @ y of 8-bit operands (x, y hold their values) through the simulator (gpu == false) or
// the backend under test, into an int32 z.
template <class Kernel>
std::vector<std::int32_t> run_integer(int n0, int n1, int mid, const std::vector<std::int32_t>& x,
                                      const std::vector<std::int32_t>& y, const std::string& name,
                                      bool gpu, std::string& error) {
  constexpr tp::dtype operands = kernel_traits<Kernel>::dtype;
  std::vector<tp::tensor> tensors(3);
  tensors[0] = {"x", {n0, mid}, {}, false, operands, x};
  tensors[1] = {"y", {mid, n1}, {}, false, operands, y};
  tensors[2] = {"z", {n0, n1}, {}, true, tp::dtype::int32};
  tp::launch_request request;
  request.grid = {(n0 + Kernel::block_rows - 1) / Kernel::block_rows,
                  (n1 + Kernel::block_cols - 1) / Kernel::block_cols, 1};
  request.tensors = &tensors;
  request.sizes = {n0, n1, mid};
  if (!gpu) {
    const auto outcome = tp::sim_launch<Kernel>(request, {});
    if (outcome.result.error) error = "the simulator: " + outcome.result.error->message;
  } else {
    const auto& table = kernels_under_test().tests;
    const auto it = table.find(name);
    if (it == table.end()) error = "no kernel " + name + " on " TILEPUZZLES_UNDER_TEST;
    else error = it->second(request);
  }
  return tensors.back().ints;
}

// An integer kernel on ragged shapes of the extreme values (-128 and 127, or 0 and 255, often):
// the simulator gives the host's exact sums, the backend under test the simulator's.
template <class Kernel>
int check_integer_kernel(const char* name) {
  const bool is_signed = kernel_traits<Kernel>::dtype == tp::dtype::int8;
  int checked = 0;
  for (const auto& [n0, n1, mid, seed] : {std::array{50, 45, 70, 41}, std::array{16, 16, 16, 42}}) {
    INFO(name << ", [" << n0 << ", " << mid << "] @ [" << mid << ", " << n1 << "]");
    std::mt19937 random(static_cast<unsigned>(seed));
    auto eight_bits = [&] {
      const int low = is_signed ? -128 : 0, high = is_signed ? 127 : 255;
      const unsigned r = random() % 4;
      return r == 0 ? low : r == 1 ? high : low + static_cast<int>(random() % 256);
    };
    std::vector<std::int32_t> x(static_cast<std::size_t>(n0) * mid), y(static_cast<std::size_t>(mid) * n1);
    for (auto& v : x) v = eight_bits();
    for (auto& v : y) v = eight_bits();
    std::string error;
    const auto sim = run_integer<Kernel>(n0, n1, mid, x, y, name, false, error);
    REQUIRE(error.empty());
    std::size_t unlike_host = 0;
    for (int i = 0; i < n0; ++i)
      for (int j = 0; j < n1; ++j) {
        long long s = 0;
        for (int k = 0; k < mid; ++k) s += static_cast<long long>(x[i * mid + k]) * y[k * n1 + j];
        unlike_host += sim[i * n1 + j] != s;
      }
    CHECK(unlike_host == 0);
    const auto gpu = run_integer<Kernel>(n0, n1, mid, x, y, name, true, error);
    INFO(error);
    REQUIRE(error.empty());
    std::size_t unlike_simulator = 0;
    for (std::size_t e = 0; e < sim.size(); ++e) unlike_simulator += gpu[e] != sim[e];
    CHECK(unlike_simulator == 0);
    ++checked;
  }
  return checked;
}

// z = x @ y on the host, each element from 0 adding its products in order of k: fused (one
// rounding per k, as docs/tl.md defines float32 dot) or not (each product rounded, then added).
std::vector<float> host_product(const problem& p, bool fused) {
  std::vector<float> z(static_cast<std::size_t>(p.n0) * p.n1);
  for (int i = 0; i < p.n0; ++i)
    for (int j = 0; j < p.n1; ++j) {
      float s = 0.0f;
      for (int k = 0; k < p.mid; ++k) {
        const float x = p.x[i * p.mid + k], y = p.y[k * p.n1 + j];
        if (fused) {
          s = std::fma(x, y, s);
        } else {
          const float product = x * y;
          s = s + product;
        }
      }
      z[i * p.n1 + j] = s;
    }
  return z;
}

// sum_k |x(i, k) * y(k, j)| of the operands as the kernel multiplies them.
std::vector<double> magnitudes(const problem& p, bool tf32) {
  std::vector<double> s(static_cast<std::size_t>(p.n0) * p.n1, 0.0);
  auto v = [&](float f) { return std::fabs(static_cast<double>(tf32 ? tl::round_to_tf32(f) : f)); };
  for (int i = 0; i < p.n0; ++i)
    for (int k = 0; k < p.mid; ++k)
      for (int j = 0; j < p.n1; ++j) s[i * p.n1 + j] += v(p.x[i * p.mid + k]) * v(p.y[k * p.n1 + j]);
  return s;
}

// (K + 1) * 2^-21 * sum_k |a * b|: the TF32 and 16-bit tolerance of docs/tl.md.
double tensor_core_tolerance(int k, double magnitude) { return (k + 1) * std::ldexp(1.0, -21) * magnitude; }

bool same_bits(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// The elements where the backend under test and the simulator differ by more than allowed.
std::vector<std::string> differences(const std::string& name, const problem& p,
                                     const std::vector<float>& sim, const std::vector<float>& gpu,
                                     bool to_the_bit, bool tf32) {
  const auto s = magnitudes(p, tf32);
  std::vector<std::string> wrong;
  for (std::size_t e = 0; e < sim.size() && wrong.size() < 8; ++e) {
    const bool ok = to_the_bit ? same_bits(gpu[e], sim[e])
                               : (std::isnan(sim[e]) ? std::isnan(gpu[e])
                                                     : std::fabs(static_cast<double>(gpu[e]) - sim[e]) <=
                                                           tensor_core_tolerance(p.mid, s[e]));
    if (!ok) {
      std::ostringstream o;
      o.precision(9);
      o << name << ", [" << p.n0 << ", " << p.mid << "] @ [" << p.mid << ", " << p.n1 << "]: z("
        << e / p.n1 << ", " << e % p.n1 << ") is " << gpu[e] << " on " << TILEPUZZLES_UNDER_TEST
        << ", " << sim[e] << " in the simulator"
        << (to_the_bit ? " (must agree to the bit)" : "");
      wrong.push_back(o.str());
    }
  }
  return wrong;
}

std::vector<float> values(std::size_t n, unsigned seed, float (*make)(std::mt19937&)) {
  std::mt19937 random(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = make(random);
  return v;
}

float whole(std::mt19937& r) { return static_cast<float>(static_cast<int>(r() % 33) - 16); }
float signed_random(std::mt19937& r) { return std::uniform_real_distribution<float>(-2.0f, 2.0f)(r); }
// Multiples of 1/64 in [-2, 2): exact in float16 and bfloat16.
float sixty_fourths(std::mt19937& r) { return static_cast<float>(static_cast<int>(r() % 256) - 128) / 64.0f; }
// t * (1 + 2^-13) for t = k / 16, k in 1..64: TF32 rounds it down to t, exactly.
float rounds_down(std::mt19937& r) {
  const float t = static_cast<float>(1 + r() % 64) / 16.0f;
  return t + t * 0x1p-13f;
}

problem make(int n0, int n1, int mid, unsigned seed, float (*f)(std::mt19937&)) {
  problem p{n0, n1, mid, {}, {}};
  p.x = values(static_cast<std::size_t>(n0) * mid, seed, f);
  p.y = values(static_cast<std::size_t>(mid) * n1, seed + 1, f);
  return p;
}

// x's rows hold the rounding's edge cases, y is the identity: z = x rounded to TF32.
problem rounding_edges() {
  problem p{16, 16, 16, std::vector<float>(256, 0.0f), std::vector<float>(256, 0.0f)};
  for (int k = 0; k < 16; ++k) p.y[k * 16 + k] = 1.0f;
  const float edges[] = {
      1.0f + 0x1p-11f,               // a tie: away from zero, 1 + 2^-10 (to even would give 1)
      -(1.0f + 0x1p-11f),            // the same, negative
      1.0f + 0x1p-10f + 0x1p-11f,    // a tie above an odd TF32 value: 1 + 2^-9 either way
      1.0f + 0x1p-11f - 0x1p-23f,    // just under a tie: 1
      1.0f + 0x1p-11f + 0x1p-23f,    // just over: 1 + 2^-10
      3.0e38f,                       // large, finite after rounding
      0x1p-126f * (1.0f + 0x1p-11f), // the smallest normal binade, a tie
      -0.0f,
      1.9999999f,                    // rounds up into the next binade: 2
      0.1f,
      -123456.789f,
      65504.0f + 1.0f,
  };
  int e = 0;
  for (float v : edges) p.x[(e / 16) * 16 + e % 16] = v, ++e;
  for (int r = 1; r < 15; ++r)
    for (int k = 0; k < 16; ++k) p.x[r * 16 + k] = edges[(r + k) % 12] * (r % 2 ? -1.0f : 1.0f);
  // The last row: the largest float (rounds to infinity), infinity and NaN; every element of the
  // row is then NaN (infinity times the identity's zeros), on both.
  p.x[15 * 16 + 0] = FLT_MAX;
  p.x[15 * 16 + 5] = INFINITY;
  p.x[15 * 16 + 9] = NAN;
  return p;
}

}  // namespace

TEST_CASE("a matmul kernel gives the simulator's result in every dot precision, on ragged shapes",
          "[gpu][dot]") {
  int checked = 0, kernels = 0;
  tp::gpu_tests::for_each_dot_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    ++kernels;
    using traits = kernel_traits<Kernel>;
    if constexpr (traits::integer) {
      checked += check_integer_kernel<Kernel>(name);
      return;
    }
    std::vector<std::pair<std::string, problem>> problems;
    if constexpr (traits::exact) {
      problems.push_back({"whole numbers", make(50, 45, 70, 11, whole)});
      problems.push_back({"signed random operands", make(50, 45, 70, 13, signed_random)});
      problems.push_back({"signed random operands, one block", make(16, 16, 16, 14, signed_random)});
    } else if constexpr (traits::tf32) {
      problems.push_back({"operands that TF32 rounds down", make(50, 45, 70, 21, rounds_down)});
      problems.push_back({"signed random operands", make(70, 40, 100, 22, signed_random)});
    } else {
      problems.push_back({"multiples of 1/64", make(50, 45, 70, 31, sixty_fourths)});
      problems.push_back({"multiples of 1/64, one block", make(16, 16, 16, 32, sixty_fourths)});
    }
    for (const auto& [what, p] : problems) {
      INFO(name << ", " << what);
      std::string error;
      const auto sim = run<Kernel>(p, name, false, error);
      REQUIRE(error.empty());
      if constexpr (traits::exact) {
        // The simulator's own values: the host's loop of fused multiply-adds, to the bit; and
        // operands for which rounding each product first would differ in most elements.
        const auto fused = host_product(p, true), unfused = host_product(p, false);
        std::size_t unlike_host = 0, apart = 0;
        for (std::size_t e = 0; e < fused.size(); ++e) {
          unlike_host += !same_bits(sim[e], fused[e]);
          apart += !same_bits(fused[e], unfused[e]);
        }
        CHECK(unlike_host == 0);
        if (what != std::string("whole numbers")) CHECK(apart > fused.size() / 2);
      }
      const auto gpu = run<Kernel>(p, name, true, error);
      INFO(error);
      REQUIRE(error.empty());
      const auto wrong = differences(name, p, sim, gpu, traits::exact, traits::tf32);
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
      ++checked;
    }
  }));
  const auto n = tp::gpu_tests::count_kernels(
      [](auto&& f) { tp::gpu_tests::for_each_dot_kernel(f); },
      []<class>(std::string_view) { return true; });
  CHECK(n.listed == 35);
  CHECK(kernels == n.built);
  // With every warp count built: fp32 (3 kernels, 3 problems each), tf32, float16 and bfloat16
  // kernels, the six kernels whose `a` is a declared tile, in both 16-bit dtypes, the three with
  // two products in a loop, and the eight with b = tl::trans(rows): two fp32 (3 problems), one
  // tf32 and five 16-bit (2 each), and the three integer ones (2 each)
  if (n.built == n.listed)
    CHECK(checked >= 3 * 3 + 4 * 2 + 4 * 2 + 6 * 2 + 3 * 2 + 2 * 3 + 6 * 2 + 3 * 2);
}

TEST_CASE("dot with tl::tf32 rounds each operand as the tensor cores do: ties away from zero, "
          "NaN and infinity kept",
          "[gpu][dot]") {
  using Kernel = test_kernels::MatmulPrecision<float, tl::tf32_t, 32, 32, 16, 4>;
  const char* name = "matmul tf32 <32, 32, 16>, 4 warps";
  const problem p = rounding_edges();
  std::string error;
  const auto sim = run<Kernel>(p, name, false, error);
  REQUIRE(error.empty());
  // The simulator's own values, by hand.
  CHECK(sim[0] == 1.0f + 0x1p-10f);
  CHECK(sim[1] == -(1.0f + 0x1p-10f));
  CHECK(sim[2] == 1.0f + 0x1p-9f);
  CHECK(sim[3] == 1.0f);
  CHECK(sim[4] == 1.0f + 0x1p-10f);
  CHECK(sim[6] == 0x1p-126f * (1.0f + 0x1p-10f));
  CHECK(sim[8] == 2.0f);
  for (int j = 0; j < 16; ++j) CHECK(std::isnan(sim[15 * 16 + j]));
  const auto gpu = run<Kernel>(p, name, true, error);
  INFO(error);
  REQUIRE(error.empty());
  const auto wrong = differences(name, p, sim, gpu, true, true);
  for (const auto& w : wrong) UNSCOPED_INFO(w);
  CHECK(wrong.empty());
}

TEST_CASE("the TF32 tolerance is tight enough to catch operands that were not rounded",
          "[gpu][dot]") {
  // The twin of the parity test above: the simulator's TF32 result is compared with the product
  // of the operands as given (float32, unrounded), computed in double; a backend that skipped
  // the rounding would be that far off, and most elements must fall outside the tolerance.
  using Kernel = test_kernels::MatmulPrecision<float, tl::tf32_t, 32, 32, 16, 4>;
  const problem p = make(50, 45, 70, 21, rounds_down);
  std::string error;
  const auto sim = run<Kernel>(p, "matmul tf32 <32, 32, 16>, 4 warps", false, error);
  REQUIRE(error.empty());
  const auto s = magnitudes(p, false);
  int outside = 0;
  for (int i = 0; i < p.n0; ++i)
    for (int j = 0; j < p.n1; ++j) {
      double unrounded = 0;
      for (int k = 0; k < p.mid; ++k)
        unrounded += static_cast<double>(p.x[i * p.mid + k]) * p.y[k * p.n1 + j];
      outside += std::fabs(unrounded - sim[i * p.n1 + j]) > tensor_core_tolerance(p.mid, s[i * p.n1 + j]);
    }
  CHECK(outside > p.n0 * p.n1 * 9 / 10);
}
