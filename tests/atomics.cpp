// The atomics of tile/atomic.hpp in the simulator: what each computes and returns (by hand, on the
// kernel the GPU parity test runs too, tests/kernels/atomics.hpp), and each check that concerns
// them with a planted bug that must be caught and a correct twin that must run clean: atomics of
// many programs on one element never race; an atomic and a plain load or store of another program
// on one element do, in either order; bounds, masks, poison and unwritten elements as for a store.

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tests/kernels/atomics.hpp"
#include "tile/tl.hpp"

namespace {

using tl::sim::diagnostic;
using tl::sim::launch_options;
using program_id3 = std::array<int, 3>;

template <class T>
tl::sim::buffer input(const char* name, std::vector<T>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, tl::sim::dtype_name<T>(),
                         sizeof(T), data.data(), true);
}
// An output the host zeroed (or filled) before the launch: its elements hold values.
template <class T>
tl::sim::buffer filled(const char* name, std::vector<T>& data) {
  return input(name, data);
}
// An output as the checker gives it to a kernel: poisoned, nothing written.
template <class T>
tl::sim::buffer poisoned(const char* name, std::vector<T>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, tl::sim::dtype_name<T>(),
                         sizeof(T), data.data(), false);
}

launch_options in_order(tl::sim::order o) {
  launch_options opt;
  opt.order = o;
  return opt;
}

std::string at_line(int line) { return "atomics.cpp:" + std::to_string(line); }

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

#define REQUIRE_CLEAN(result)                                                         \
  do {                                                                                \
    INFO(((result).error ? (result).error->message : std::string("no diagnostic")));  \
    REQUIRE_FALSE((result).error.has_value());                                        \
  } while (0)

}  // namespace

// ---------------------------------------------------------------------------------------------
// What they compute

TEST_CASE("atomics of many programs add, keep the maximum and minimum, exchange and compare-and-"
          "swap, and return the old values, in every program order",
          "[sim][atomics]") {
  using K = test_kernels::Atomics<16>;
  constexpr int n = 45, programs = 3, bins = K::bins;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7) % 11 - 5);
  for (auto order : {tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle}) {
    INFO("order " << static_cast<int>(order));
    std::vector<float> z(K::z_size(n), 0.0f);
    std::vector<int> counts(K::counts_size(n), 0);
    auto bx = input("x", x);
    auto bz = filled("z", z);
    auto bc = filled("counts", counts);
    const auto r = tl::sim::run_grid({programs, 1, 1}, in_order(order), {&bx, &bz, &bc}, [&] {
      K{}(tl::ptr<const float>{&bx}, tl::ptr<float>{&bz}, tl::ptr<int>{&bc}, n);
    });
    REQUIRE_CLEAN(r);
    for (int b = 0; b < bins; ++b) {
      INFO("bin " << b);
      float sum = 0, most = 0, least = 0;
      int count = 0;
      for (int i = b; i < n; i += bins) {
        sum += x[i];
        most = std::max(most, x[i]);
        least = std::min(least, x[i]);
        ++count;
      }
      CHECK(z[b] == sum);
      if (b == 5) {  // lane 5's NaN wins in its bins, as in tl::maximum and tl::minimum
        CHECK(std::isnan(z[bins + b]));
        CHECK(std::isnan(z[2 * bins + b]));
      } else {
        CHECK(z[bins + b] == most);
        CHECK(z[2 * bins + b] == least);
      }
      CHECK(counts[b] == count);
    }
    for (int c = 0; c < 4; ++c) {
      int last = 0;
      for (int i = c; i < n; i += 4) last = i;
      CHECK(counts[bins + c] == last);
      CHECK(counts[bins + 4 + c] == std::min(0, -last));
    }
    for (int i = 0; i < n; ++i) {
      INFO("lane " << i);
      const float v = x[i];
      const bool even = i % 2 == 0;
      const float now = even ? -v : v + 1.5f;  // what the element holds at the end
      CHECK(z[3 * bins + i] == now);
      // was_zero + was_v * 2 + unmatched * 4: the old values 0, v and `now`.
      CHECK(z[3 * bins + n + i] == 0.0f + v * 2.0f + now * 4.0f);
      CHECK(z[3 * bins + 2 * n + i] == (even ? v + 1.5f : 0.0f));  // odd lanes were masked off
      CHECK(counts[16 + i] == i + 3);
      CHECK(counts[16 + n + i] == 0 * 1000 + i);
    }
    CHECK(bz.counters.atomics == 6LL * n + (n + 1) / 2);  // 3 shared, xchg, add, 2 cas
    CHECK(bc.counters.atomics == 5LL * n);
  }
}

TEST_CASE("float atomic_max and atomic_min follow tl::maximum and tl::minimum: NaN wins, -0 is "
          "below +0, and atomic_cas compares bits",
          "[sim][atomics]") {
  std::vector<float> z = {0.0f, 0.0f, -0.0f, 1.0f, NAN, 2.0f};
  std::vector<float> old(6, -1.0f);
  auto bz = filled("z", z);
  auto bo = poisoned("old", old);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz, &bo}, [&] {
    tl::ptr<float> p{&bz};
    tl::ptr<float> o{&bo};
    tl::store(o + 0, tl::atomic_min(p + 0, -0.0f));   // min(+0, -0) = -0
    tl::store(o + 1, tl::atomic_max(p + 1, -0.0f));   // max(+0, -0) = +0
    tl::store(o + 2, tl::atomic_max(p + 2, 0.0f));    // max(-0, +0) = +0
    tl::store(o + 3, tl::atomic_max(p + 3, NAN));     // NaN wins
    tl::store(o + 4, tl::atomic_min(p + 4, 5.0f));    // NaN stays
    tl::store(o + 5, tl::atomic_cas(p + 5, 2.0f, 9.0f));
  });
  REQUIRE_CLEAN(r);
  CHECK(bits(z[0]) == bits(-0.0f));
  CHECK(bits(z[1]) == bits(0.0f));
  CHECK(bits(z[2]) == bits(0.0f));
  CHECK(std::isnan(z[3]));
  CHECK(std::isnan(z[4]));
  CHECK(z[5] == 9.0f);
  CHECK(bits(old[0]) == bits(0.0f));
  CHECK(bits(old[2]) == bits(-0.0f));
  CHECK(old[5] == 2.0f);

  SECTION("atomic_cas with a comparand of the other zero does not swap") {
    std::vector<float> w = {-0.0f};
    auto bw = filled("w", w);
    const auto r2 = tl::sim::run_grid({1, 1, 1}, {}, {&bw}, [&] {
      tl::atomic_cas(tl::ptr<float>{&bw}, 0.0f, 3.0f);
    });
    REQUIRE_CLEAN(r2);
    CHECK(bits(w[0]) == bits(-0.0f));
  }
}

TEST_CASE("lanes of one atomic on one element are applied one after another, in lane order",
          "[sim][atomics]") {
  std::vector<int> bins(2, 0);
  std::vector<int> old(8, -1);
  auto bb = filled("bins", bins);
  auto bo = poisoned("old", old);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bb, &bo}, [&] {
    auto lanes = tl::arange<8>();
    tl::store(tl::ptr<int>{&bo} + lanes, tl::atomic_add(tl::ptr<int>{&bb} + lanes % 2, 1));
  });
  REQUIRE_CLEAN(r);
  CHECK(bins == std::vector<int>{4, 4});
  CHECK(old == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
}

// ---------------------------------------------------------------------------------------------
// Races: an atomic and a plain access of two programs on one element

TEST_CASE("a plain store and an atomic of two programs on one element are reported as "
          "race-write-write, in either order",
          "[sim][atomics][race]") {
  std::vector<float> z(4, 0.0f);
  auto bz = filled("z", z);
  int line = 0;
  auto kernel = [&] {
    tl::ptr<float> p{&bz};
    if (tl::program_id(0) == 0) {
      line = __LINE__; tl::store(p + tl::arange<4>(), 1.0f);
    } else {
      tl::atomic_add(p + tl::arange<4>(), 1.0f);
    }
  };
  SECTION("the store first: the atomic is reported") {
    const auto r = tl::sim::run_grid({2, 1, 1}, in_order(tl::sim::order::forward), {&bz}, kernel);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "race-write-write");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->message, Catch::Contains("atomically updates z") &&
                                     Catch::Contains("a plain store and an atomic") &&
                                     Catch::Contains("tl::atomic_xchg"));
  }
  SECTION("the atomic first: the store is reported, at its line") {
    const auto r = tl::sim::run_grid({2, 1, 1}, in_order(tl::sim::order::reverse), {&bz}, kernel);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "race-write-write");
    CHECK(r.error->program == program_id3{0, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    CHECK_THAT(r.error->message, Catch::Contains("updated by an atomic of program (1, 0, 0)"));
  }
}

TEST_CASE("atomics of many programs on one element, and a plain store by the same program, are "
          "clean",
          "[sim][atomics][race]") {
  std::vector<float> z(4, 0.0f);
  auto bz = filled("z", z);
  for (auto order : {tl::sim::order::forward, tl::sim::order::reverse}) {
    std::fill(z.begin(), z.end(), 0.0f);
    const auto r = tl::sim::run_grid({3, 1, 1}, in_order(order), {&bz}, [&] {
      tl::ptr<float> p{&bz};
      tl::atomic_add(p + tl::arange<4>(), 1.0f);
      tl::atomic_xchg(p + 3, 5.0f);  // in place of a plain store of one element
    });
    REQUIRE_CLEAN(r);
    CHECK(z[0] == 3.0f);
    CHECK(z[3] == 5.0f);
  }
}

TEST_CASE("a plain load and an atomic of two programs on one element are reported as "
          "race-read-write, in either order",
          "[sim][atomics][race]") {
  std::vector<int> total = {0};
  std::vector<int> seen(2, 0);
  auto bt = filled("total", total);
  auto bs = filled("seen", seen);
  // Each program adds 1 to the total, then reads it back: the read is another program's business.
  auto kernel = [&] {
    tl::ptr<int> t{&bt};
    tl::atomic_add(t, 1);
    tl::store(tl::ptr<int>{&bs} + tl::program_id(0), tl::load(t));
  };
  SECTION("forward: the second program's load sees the first's atomic") {
    const auto r = tl::sim::run_grid({2, 1, 1}, in_order(tl::sim::order::forward), {&bt, &bs},
                                     kernel);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "race-read-write");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->message, Catch::Contains("a plain load and an atomic") &&
                                     Catch::Contains("the value the atomic returns"));
  }
  SECTION("a load of the first program, then another program's atomic") {
    std::vector<int> first = {0};
    auto bf = filled("first", first);
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bf}, [&] {
      tl::ptr<int> f{&bf};
      if (tl::program_id(0) == 0) {
        int now = tl::load(f);
        (void)now;
      } else {
        tl::atomic_max(f, 7);
      }
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "race-read-write");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->message, Catch::Contains("read by a plain tl::load of program (0, 0, 0)"));
  }
}

TEST_CASE("the twin: each program keeps the old value its atomic returns, with no plain load",
          "[sim][atomics][race]") {
  std::vector<int> total = {0};
  std::vector<int> seen(3, -1);
  auto bt = filled("total", total);
  auto bs = poisoned("seen", seen);
  const auto r = tl::sim::run_grid({3, 1, 1}, in_order(tl::sim::order::reverse), {&bt, &bs}, [&] {
    auto before = tl::atomic_add(tl::ptr<int>{&bt}, 1);
    tl::store(tl::ptr<int>{&bs} + tl::program_id(0), before + 1);
  });
  REQUIRE_CLEAN(r);
  CHECK(total[0] == 3);
  CHECK(seen == std::vector<int>{3, 2, 1});  // reverse order: program 2 came first
}

// ---------------------------------------------------------------------------------------------
// Bounds, masks, poison and unwritten elements, as for a store

TEST_CASE("an atomic past the end of the buffer is reported as out-of-bounds, and masked it is clean "
          "and the masked-off elements are untouched",
          "[sim][atomics][out-of-bounds]") {
  std::vector<int> bins(6, 0);
  bins[5] = 42;
  auto bb = filled("bins", bins);
  SECTION("without a mask") {
    int line = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bb}, [&] {
      line = __LINE__; tl::atomic_add(tl::ptr<int>{&bb} + tl::arange<8>(), 1);
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK(r.error->buffer == "bins");
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    REQUIRE(r.error->lanes.size() == 2);
    CHECK(r.error->lanes[0].offset == 6);
    CHECK_THAT(r.error->message, Catch::Contains("atomically updates bins"));
  }
  SECTION("masked: lanes 5 to 7 are off, and element 5 keeps its value") {
    std::vector<int> old(8, -1);
    auto bo = filled("old", old);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bb, &bo}, [&] {
      auto lanes = tl::arange<8>();
      auto was = tl::atomic_add(tl::ptr<int>{&bb} + lanes, 1, lanes < 5);
      tl::store(tl::ptr<int>{&bo} + lanes, was, lanes < 5);
    });
    REQUIRE_CLEAN(r);
    CHECK(bins == std::vector<int>{1, 1, 1, 1, 1, 42});
    CHECK(old == std::vector<int>{0, 0, 0, 0, 0, -1, -1, -1});
    CHECK(bb.counters.atomics == 5);
    CHECK(bb.counters.masked_stores == 3);
  }
}

TEST_CASE("the old values of masked-off lanes are poison: storing them is reported",
          "[sim][atomics][poison]") {
  std::vector<float> z(8, 0.0f);
  std::vector<float> old(8, 0.0f);
  auto bz = filled("z", z);
  auto bo = poisoned("old", old);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz, &bo}, [&] {
    auto lanes = tl::arange<8>();
    auto was = tl::atomic_max(tl::ptr<float>{&bz} + lanes, 1.0f, lanes < 4);
    tl::store(tl::ptr<float>{&bo} + lanes, was);  // the twin above stores under the same mask
  });
  REQUIRE(r.error.has_value());
  INFO(r.error->message);
  CHECK(r.error->kind == "poison-store");
  REQUIRE_FALSE(r.error->lanes.empty());
  CHECK(r.error->lanes[0].lane == 4);
  CHECK_THAT(r.error->message, Catch::Contains("the masked-off lanes of an atomic"));
}

TEST_CASE("an atomic on an output element nothing wrote is reported as uninitialized-read, and on a "
          "zeroed one it is clean",
          "[sim][atomics][uninitialized]") {
  std::vector<float> z(4, 0.0f);
  SECTION("poisoned, as outputs start") {
    auto bz = poisoned("z", z);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz}, [&] {
      tl::atomic_add(tl::ptr<float>{&bz} + tl::arange<4>(), 1.0f);
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "uninitialized-read");
    CHECK_THAT(r.error->message, Catch::Contains("zeroes an output that atomics add into"));
  }
  SECTION("zeroed by the host") {
    auto bz = filled("z", z);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz}, [&] {
      tl::atomic_add(tl::ptr<float>{&bz} + tl::arange<4>(), 1.0f);
    });
    REQUIRE_CLEAN(r);
    CHECK(z == std::vector<float>(4, 1.0f));
  }
}

TEST_CASE("an atomic with poison values is reported as poison-store, and with `other` it is clean",
          "[sim][atomics][poison]") {
  std::vector<float> x = {1, 2, 3};
  std::vector<float> z(4, 0.0f);
  auto bx = input("x", x);
  auto bz = filled("z", z);
  auto kernel = [&](bool with_other) {
    return [&, with_other] {
      auto lanes = tl::arange<4>();
      auto v = with_other ? tl::load(tl::ptr<const float>{&bx} + lanes, lanes < 3, 0.0f)
                          : tl::load(tl::ptr<const float>{&bx} + lanes, lanes < 3);
      tl::atomic_add(tl::ptr<float>{&bz} + lanes, v);
    };
  };
  const auto bad = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, kernel(false));
  REQUIRE(bad.error.has_value());
  CHECK(bad.error->kind == "poison-store");
  std::fill(z.begin(), z.end(), 0.0f);
  const auto good = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, kernel(true));
  REQUIRE_CLEAN(good);
  CHECK(z == std::vector<float>{1, 2, 3, 0});
}

TEST_CASE("an int32 atomic_add whose sum leaves int32 is reported as index-overflow",
          "[sim][atomics][overflow]") {
  std::vector<int> total = {std::numeric_limits<int>::max() - 1};
  auto bt = filled("total", total);
  const auto bad = tl::sim::run_grid({1, 1, 1}, {}, {&bt}, [&] {
    tl::atomic_add(tl::ptr<int>{&bt}, 2);
  });
  REQUIRE(bad.error.has_value());
  INFO(bad.error->message);
  CHECK(bad.error->kind == "index-overflow");
  CHECK_THAT(bad.error->message, Catch::Contains("2147483646 + 2 = 2147483648 leaves int32"));
  total[0] = std::numeric_limits<int>::max() - 1;
  const auto good = tl::sim::run_grid({1, 1, 1}, {}, {&bt}, [&] {
    tl::atomic_add(tl::ptr<int>{&bt}, 1);
  });
  REQUIRE_CLEAN(good);
  CHECK(total[0] == std::numeric_limits<int>::max());
}
