// One semantics on both backends (docs/tl.md, "Numbers"): the simulator's side. The same kernel
// and the same expectations run on the GPU in the parity test (tests/gpu/).

#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tests/kernels/semantics.hpp"
#include "tests/kernels/semantics_expected.hpp"

namespace {

namespace sem = test_kernels::semantics;

// Runs `body` as one program and returns its diagnostic, if any.
template <class F>
tl::sim::launch_result run_one(F&& body) {
  return tl::sim::run_grid({1, 1, 1}, {}, {}, std::forward<F>(body));
}

}  // namespace

TEST_CASE("the simulator computes NaN, signed zeros, exp, exp2, division and wrapped integers as "
          "documented",
          "[tl][semantics]") {
  auto in = sem::make_inputs();
  using kernel = test_kernels::Semantics<sem::N>;
  std::vector<float> z(kernel::outputs);
  tl::sim::buffer ba("a", {sem::N}, "float32", sizeof(float), in.a.data(), true);
  tl::sim::buffer bb("b", {sem::N}, "float32", sizeof(float), in.b.data(), true);
  tl::sim::buffer bz("z", {kernel::outputs}, "float32", sizeof(float), z.data(), false);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&ba, &bb, &bz}, [&] {
    kernel{}(tl::ptr<const float>{&ba}, tl::ptr<const float>{&bb}, tl::ptr<float>{&bz}, sem::N);
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  const auto wrong = sem::mismatches(in, z, sem::math::exact);
  for (const auto& w : wrong) UNSCOPED_INFO(w);
  CHECK(wrong.empty());
}

TEST_CASE("maximum and minimum propagate NaN in either position, and order -0 below +0",
          "[tl][semantics]") {
  // The kernel above covers tiles; this pins the lane operations themselves, both orders.
  const float nan = sem::nan;
  CHECK(std::isnan(tl::op::maximum{}(nan, 1.0f)));
  CHECK(std::isnan(tl::op::maximum{}(1.0f, nan)));
  CHECK(std::isnan(tl::op::minimum{}(nan, 1.0f)));
  CHECK(std::isnan(tl::op::minimum{}(1.0f, nan)));
  CHECK_FALSE(std::signbit(tl::op::maximum{}(-0.0f, 0.0f)));
  CHECK_FALSE(std::signbit(tl::op::maximum{}(0.0f, -0.0f)));
  CHECK(std::signbit(tl::op::minimum{}(-0.0f, 0.0f)));
  CHECK(std::signbit(tl::op::minimum{}(0.0f, -0.0f)));
  CHECK(tl::op::maximum{}(2.0, 3) == 3.0);
  CHECK(tl::op::minimum{}(-5LL, 3LL) == -5LL);
}

TEST_CASE("an integer lane that wrapped past int32 is reported where anything but + - * uses it",
          "[tl][semantics][index-overflow]") {
  const int big = 1'000'000'000;
  SECTION("in a comparison") {
    const auto r = run_one([&] {
      auto far = tl::arange<4>() * big;  // lane 3 (3e9) wraps on the GPU
      tl::tile<bool, 4> small = far < 5;
      (void)small;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK_THAT(r.error->message, Catch::Contains("3000000000") && Catch::Contains("comparison"));
  }
  SECTION("in an integer division") {
    const auto r = run_one([&] {
      tl::tile<int, 4> q = (tl::arange<4>() * big) / 7;
      (void)q;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK_THAT(r.error->message, Catch::Contains("integer division"));
  }
  SECTION("INT_MIN / -1, when the result is used") {
    const auto r = run_one([&] {
      tl::tile<int, 2> q = tl::full<2>(INT_MIN) / -1;
      (void)q;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK_THAT(r.error->message, Catch::Contains("2147483648"));
  }
  SECTION("in a conversion to float") {
    const auto r = run_one([&] {
      tl::tile<float, 4> f = tl::cast<float>(tl::arange<4>() * big * 3);
      (void)f;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK_THAT(r.error->message, Catch::Contains("tl::cast"));
  }
  SECTION("a float that is NaN or outside int32, converted to int") {
    const auto r = run_one([&] {
      tl::tile<int, 2> i = tl::cast<int>(tl::full<2>(3e9f));
      (void)i;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK_THAT(r.error->message, Catch::Contains("3e+09"));
  }
}

TEST_CASE("integer lanes that wrap and come back into int32 through + - * are clean, as on the GPU",
          "[tl][semantics][index-overflow]") {
  std::vector<int> got;
  const auto r = run_one([&] {
    const int big = 1'000'000'000;
    auto i = tl::arange<4>();
    tl::tile<int, 4> back = i * big * 5 - i * big * 5 + i - (-i) * 2;
    tl::tile<bool, 4> fits = back < 100;  // compared after coming back: fine
    tl::tile<int, 4> q = back / 2 + back % 2;
    for (int k = 0; k < 4; ++k) got.push_back(q.storage.value(k) + fits.storage.value(k));
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(got == std::vector<int>{1, 3, 4, 6});  // 3i / 2 + 3i % 2, + 1 for true
}
