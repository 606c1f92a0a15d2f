// tl::range in the simulator: the same iterations and the same bits as the plain loop it reads
// as, for every number of stages; its index used as an int and inside tile expressions; a step of
// zero reported rather than looping forever.
#include <catch2/catch.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

tl::sim::buffer input(const char* name, std::vector<float>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, "float32", sizeof(float),
                         data.data(), true);
}
tl::sim::buffer output(const char* name, std::vector<float>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, "float32", sizeof(float),
                         data.data(), false);
}

template <class Range>
std::vector<int> visited(Range&& r) {
  std::vector<int> seen;
  for (auto k : r) seen.push_back(k);
  return seen;
}

std::vector<int> python_range(int lo, int hi, int step) {
  std::vector<int> seen;
  for (int k = lo; step > 0 ? k < hi : k > hi; k += step) seen.push_back(k);
  return seen;
}

// Sums x[k : k + 8] for each k of the loop, masked at n; both loops write their sums to z.
template <int Stages>
void block_sums(int n, int step) {
  std::vector<float> x(100);
  for (int i = 0; i < 100; ++i) x[i] = 0.25f * static_cast<float>(i * 37 % 101) - 3.0f;
  std::vector<float> z(16, 0.0f);
  auto bx = input("x", x);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    tl::ptr<const float> px{&bx};
    tl::ptr<float> pz{&bz};
    tl::tile<float, 8> piped = 0.0f, plain = 0.0f;
    for (auto k : tl::range(0, n, step, tl::num_stages<Stages>)) {
      auto offsets = k + tl::arange<8>();
      piped += tl::load(px + offsets, offsets < n, 0.0f);
    }
    for (int k = 0; k < n; k += step) {
      auto offsets = k + tl::arange<8>();
      plain += tl::load(px + offsets, offsets < n, 0.0f);
    }
    tl::store(pz + tl::arange<8>(), piped);
    tl::store(pz + 8 + tl::arange<8>(), plain);
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  for (int i = 0; i < 8; ++i) CHECK(z[i] == z[8 + i]);
}

}  // namespace

TEST_CASE("tl::range visits what Python's range does", "[tl][range]") {
  CHECK(visited(tl::range(0, 10, 3)) == python_range(0, 10, 3));
  CHECK(visited(tl::range(0, 10, 3, tl::num_stages<3>)) == python_range(0, 10, 3));
  CHECK(visited(tl::range(0, 12, 4, tl::num_stages<2>)) == std::vector<int>{0, 4, 8});
  CHECK(visited(tl::range(5, 5, 1, tl::num_stages<2>)).empty());
  CHECK(visited(tl::range(7, 2, 1)).empty());
  CHECK(visited(tl::range(10, 0, -4)) == std::vector<int>{10, 6, 2});
  CHECK(visited(tl::range(4)) == std::vector<int>{0, 1, 2, 3});
  CHECK(visited(tl::range(2, 5)) == std::vector<int>{2, 3, 4});
}

TEST_CASE("the index of tl::range is an int in C++ and a lazy int tile beside tiles", "[tl][range]") {
  std::vector<int> scalars;
  std::vector<float> z(12, -1.0f);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz}, [&] {
    tl::ptr<float> pz{&bz};
    for (auto k : tl::range(0, 3, 1, tl::num_stages<3>)) {
      int doubled = k * 2;  // scalar arithmetic and comparisons stay C++ ints
      if (k < 2) scalars.push_back(doubled + k);
      auto lanes = k * 4 + tl::arange<4>();  // an int, then a tile
      static_assert(std::is_same_v<tl::value_of_t<decltype(k + tl::arange<4>())>, int>);
      tl::store(pz + lanes, tl::cast<float>(tl::arange<4>() - k), lanes < 12);
    }
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(scalars == std::vector<int>{0, 3});
  CHECK(z == std::vector<float>{0, 1, 2, 3, -1, 0, 1, 2, -2, -1, 0, 1});
}

TEST_CASE("a pointer advanced by the index loads what the plain loop loads", "[tl][range]") {
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> z(2, 0.0f);
  auto bx = input("x", x);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    tl::ptr<const float> px{&bx};
    tl::tile<float, 2> acc = 0.0f;
    for (auto k : tl::range(0, 8, 2, tl::num_stages<2>)) acc += tl::load(px + k + tl::arange<2>());
    tl::store(tl::ptr<float>{&bz} + tl::arange<2>(), acc);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(z == std::vector<float>{16, 20});
}

TEST_CASE("a pipelined range gives the plain loop's bits: ragged tails, steps that do not divide, "
          "empty ranges, 1 to 4 stages",
          "[tl][range]") {
  for (int n : {0, 5, 8, 37, 64, 100}) {
    for (int step : {3, 8, 16}) {
      INFO("n = " << n << ", step = " << step);
      block_sums<1>(n, step);
      block_sums<2>(n, step);
      block_sums<3>(n, step);
      block_sums<4>(n, step);
    }
  }
}

TEST_CASE("tl::range with a step of 0 is reported at its line instead of looping forever",
          "[tl][range]") {
  int iterations = 0;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {}, [&] {
    int step = 0;
    for (auto k : tl::range(0, 4, step, tl::num_stages<2>)) iterations += k + 1;
  });
  REQUIRE(r.error.has_value());
  CHECK(r.error->kind == "crash");
  CHECK_THAT(r.error->message, Catch::Contains("step of 0 never ends"));
  CHECK_THAT(r.error->source, Catch::Contains("tl_range.cpp"));
  CHECK(iterations == 0);
}
