// Every simulator check, each with a planted bug that must be caught (the right diagnostic kind,
// program, buffer, lanes, offsets and kernel line) and a correct twin that must run clean.
//
// Not testable at run time, so not here: a store through tl::ptr<const T> does not compile
// (tl::store static_asserts on a const element type, inside its body, so not even a
// requires-expression can observe it). The compile-error tests belong to the build, not to Catch.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

using tl::sim::diagnostic;
using tl::sim::launch_options;
using tl::sim::launch_result;
using program_id3 = std::array<int, 3>;

template <class T>
tl::sim::buffer input(const char* name, std::vector<T>& data, std::vector<long long> shape = {}) {
  if (shape.empty()) shape = {static_cast<long long>(data.size())};
  return tl::sim::buffer(name, shape, tl::sim::dtype_name<T>(), sizeof(T), data.data(), true);
}

template <class T>
tl::sim::buffer output(const char* name, std::vector<T>& data, std::vector<long long> shape = {}) {
  if (shape.empty()) shape = {static_cast<long long>(data.size())};
  return tl::sim::buffer(name, shape, tl::sim::dtype_name<T>(), sizeof(T), data.data(), false);
}

launch_options in_order(tl::sim::order o, std::uint64_t seed = 0) {
  launch_options opt;
  opt.order = o;
  opt.seed = seed;
  return opt;
}

std::vector<float> ramp(int n, float start = 0.0f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

std::string at_line(int line) { return "simulator_checks.cpp:" + std::to_string(line); }

std::vector<long long> offsets_of(const diagnostic& d) {
  std::vector<long long> out;
  for (const auto& l : d.lanes) out.push_back(l.offset);
  return out;
}
std::vector<long long> lanes_of(const diagnostic& d) {
  std::vector<long long> out;
  for (const auto& l : d.lanes) out.push_back(l.lane);
  return out;
}

#define REQUIRE_CLEAN(result)                                                         \
  do {                                                                                \
    INFO(((result).error ? (result).error->message : std::string("no diagnostic")));  \
    REQUIRE_FALSE((result).error.has_value());                                        \
  } while (0)

}  // namespace

// ---------------------------------------------------------------------------------------------
// out-of-bounds

TEST_CASE("a load without a mask past the end of the buffer is reported as out-of-bounds",
          "[sim][out-of-bounds]") {
  SECTION("in the last program of a 1-D launch") {
    auto x = ramp(12);
    auto bx = input("x", x);
    int line = 0;
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + offs);
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(r.programs_run == 2);
    CHECK(d.buffer == "x");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{4, 5, 6, 7});
    CHECK(offsets_of(d) == std::vector<long long>{12, 13, 14, 15});
    REQUIRE(d.lanes.size() == 4);
    CHECK(d.lanes[0].coords == std::vector<int>{4});
    CHECK_THAT(d.message, Catch::Contains("4 lanes") && Catch::Contains("valid offsets 0 to 11"));
  }
  SECTION("even when another buffer lies right behind it in memory") {
    std::vector<float> storage = ramp(16);
    tl::sim::buffer bx("x", {8}, "float32", sizeof(float), storage.data(), true);
    tl::sim::buffer by("y", {8}, "float32", sizeof(float), storage.data() + 8, true);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &by}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<16>());
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(d.program == program_id3{0, 0, 0});
    CHECK(offsets_of(d) == std::vector<long long>{8, 9, 10, 11});
    CHECK_THAT(d.message, Catch::Contains("8 lanes"));
  }
  SECTION("before the start of the buffer") {
    auto x = ramp(8);
    auto bx = input("x", x);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} - 2 + tl::arange<8>());
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    CHECK(d.kind == "out-of-bounds");
    CHECK(lanes_of(d) == std::vector<long long>{0, 1});
    CHECK(offsets_of(d) == std::vector<long long>{-2, -1});
  }
  SECTION("in a 2-D tile masked along the columns but not the rows") {
    auto x = ramp(15);
    auto bx = input("x", x, {3, 5});
    int line = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      auto rows = tl::arange<4>().col();
      auto cols = tl::arange<8>().row();
      line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + rows * 5 + cols, cols < 5);
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    REQUIRE(d.lanes.size() == 4);
    CHECK(d.lanes[0].lane == 3 * 8 + 0);
    CHECK(d.lanes[0].coords == std::vector<int>{3, 0});
    CHECK(d.lanes[3].coords == std::vector<int>{3, 3});
    CHECK(offsets_of(d) == std::vector<long long>{15, 16, 17, 18});
    CHECK_THAT(d.message, Catch::Contains("5 lanes") && Catch::Contains("[3, 5]"));
    // The load has a mask: the advice is about the mask it has, not to add one.
    CHECK_THAT(d.message, Catch::Contains("This load has a mask, and it lets these lanes through"));
    CHECK_THAT(d.message, !Catch::Contains("pass a mask such as"));
  }
  SECTION("with a mask one past the end (<= for <): the advice is about the mask's bound") {
    auto x = ramp(12);
    auto bx = input("x", x);
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs <= 12);
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "out-of-bounds");
    CHECK(offsets_of(d) == std::vector<long long>{12});
    CHECK_THAT(d.message, Catch::Contains("This load has a mask, and it lets these lanes through. "
                                          "Is its bound right (`offsets < N`, not `<=`)?"));
  }
  SECTION("without a mask: the advice is to add one") {
    auto x = ramp(12);
    auto bx = input("x", x);
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} + tl::program_id(0) * 8 + tl::arange<8>());
      (void)v;
    });
    REQUIRE(r.error.has_value());
    CHECK_THAT(r.error->message, Catch::Contains("Mask the lanes that fall outside: pass a mask "
                                                 "such as `offsets < N` to this load/store."));
    CHECK_THAT(r.error->message, !Catch::Contains("has a mask"));
  }
}

TEST_CASE("the same loads with a mask that switches off the lanes outside are clean",
          "[sim][out-of-bounds]") {
  SECTION("1-D") {
    auto x = ramp(12, 1.0f);
    std::vector<float> z(12);
    auto bx = input("x", x);
    auto bz = output("z", z);
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      tl::store(tl::ptr<float>{&bz} + offs, tl::load(tl::ptr<const float>{&bx} + offs, offs < 12),
                offs < 12);
    });
    REQUIRE_CLEAN(r);
    CHECK(z == x);
    CHECK(bz.unwritten_count() == 0);
  }
  SECTION("2-D") {
    auto x = ramp(15, 1.0f);
    std::vector<float> z(15);
    auto bx = input("x", x, {3, 5});
    auto bz = output("z", z, {3, 5});
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
      auto rows = tl::arange<4>().col();
      auto cols = tl::arange<8>().row();
      auto mask = (rows < 3) & (cols < 5);
      tl::store(tl::ptr<float>{&bz} + rows * 5 + cols,
                tl::load(tl::ptr<const float>{&bx} + rows * 5 + cols, mask), mask);
    });
    REQUIRE_CLEAN(r);
    CHECK(z == x);
    CHECK(bz.unwritten_count() == 0);
  }
}

TEST_CASE("a store without a mask past the end of the buffer is reported as out-of-bounds",
          "[sim][out-of-bounds]") {
  std::vector<float> z(12);
  auto bz = output("z", z);
  int line = 0;
  auto kernel = [&] {
    auto offs = tl::program_id(0) * 8 + tl::arange<8>();
    line = __LINE__; tl::store(tl::ptr<float>{&bz} + offs, 1.0f);
  };
  SECTION("forward") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bz}, kernel);
    REQUIRE(r.error.has_value());
    CHECK(r.programs_run == 2);
    const diagnostic& d = *r.error;
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(d.buffer == "z");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{4, 5, 6, 7});
    CHECK(offsets_of(d) == std::vector<long long>{12, 13, 14, 15});
  }
  SECTION("reverse: the same program, which now runs first") {
    const auto r = tl::sim::run_grid({2, 1, 1}, in_order(tl::sim::order::reverse), {&bz}, kernel);
    REQUIRE(r.error.has_value());
    CHECK(r.programs_run == 1);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK(offsets_of(*r.error) == std::vector<long long>{12, 13, 14, 15});
  }
}

TEST_CASE("a masked store writes exactly the elements inside and is clean", "[sim][out-of-bounds]") {
  std::vector<float> z(12);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bz}, [&] {
    auto offs = tl::program_id(0) * 8 + tl::arange<8>();
    tl::store(tl::ptr<float>{&bz} + offs, offs * 2, offs < 12);
  });
  REQUIRE_CLEAN(r);
  for (int i = 0; i < 12; ++i) CHECK(z[i] == 2.0f * i);
  CHECK(bz.unwritten_count() == 0);
  CHECK(bz.counters.stores == 12);
  CHECK(bz.counters.masked_stores == 4);
}

// ---------------------------------------------------------------------------------------------
// poison-store

TEST_CASE("storing lanes of a masked load without `other` is reported as poison-store",
          "[sim][poison-store]") {
  auto x = ramp(12);
  std::vector<float> z(16);
  auto bx = input("x", x);
  auto bz = output("z", z);
  int line = 0, load_line = 0;
  const auto from_the_load = [&] {
    return Catch::Contains("The poison comes from the masked load without `other` at tests/" +
                           at_line(load_line));
  };
  SECTION("the loaded values themselves") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      load_line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs < 12);
      line = __LINE__; tl::store(tl::ptr<float>{&bz} + offs, v);
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "poison-store");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(d.buffer == "z");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{4, 5, 6, 7});
    CHECK(offsets_of(d) == std::vector<long long>{12, 13, 14, 15});
    CHECK_THAT(d.message, from_the_load());
    CHECK(d.cause == "the masked load without `other` at tests/" + at_line(load_line));
  }
  SECTION("after arithmetic on them, in data tiles of their own") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      load_line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs < 12);
      tl::tile<float, 8> scaled = tl::where(offs < 2, 0.0f, v * 0.0f);
      line = __LINE__; tl::store(tl::ptr<float>{&bz} + offs, tl::exp(scaled) + 1.0f);
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK_THAT(r.error->message, from_the_load());
    CHECK(r.error->kind == "poison-store");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    CHECK(offsets_of(*r.error) == std::vector<long long>{12, 13, 14, 15});
  }
  SECTION("through a reduction") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      load_line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs < 12);
      line = __LINE__; tl::store(tl::ptr<float>{&bz} + tl::program_id(0), tl::sum(v));
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "poison-store");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    CHECK(offsets_of(*r.error) == std::vector<long long>{1});
    CHECK_THAT(r.error->message, from_the_load());
  }
  SECTION("from a tile declared without a value, named by its declaration") {
    int declared = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::arange<8>();
      declared = __LINE__; tl::tile<float, 8> acc;
      for (int k = 0; k < 2; ++k) acc = acc + tl::load(tl::ptr<const float>{&bx} + offs);
      tl::store(tl::ptr<float>{&bz} + offs, acc);
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "poison-store");
    CHECK_THAT(r.error->message,
               Catch::Contains("a tl::tile declared without a value at tests/" + at_line(declared)));
  }
  SECTION("from an integer division by zero") {
    std::vector<int> zi(8);
    auto bzi = output("zi", zi);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bzi}, [&] {
      auto i = tl::arange<8>();
      line = __LINE__; auto q = 100 / (i - 3);
      tl::store(tl::ptr<int>{&bzi} + i, q + 1);
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "poison-store");
    CHECK(offsets_of(*r.error) == std::vector<long long>{3});
    CHECK_THAT(r.error->message,
               Catch::Contains("an integer division by zero at tests/" + at_line(line)));
  }
}

TEST_CASE("a masked load whose switched-off lanes are replaced or not stored is clean",
          "[sim][poison-store]") {
  auto x = ramp(12, 1.0f);
  std::vector<float> z(16);
  auto bx = input("x", x);
  auto bz = output("z", z);
  SECTION("with `other`") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      tl::store(tl::ptr<float>{&bz} + offs, tl::load(tl::ptr<const float>{&bx} + offs, offs < 12, -1));
    });
    REQUIRE_CLEAN(r);
    for (int i = 0; i < 16; ++i) CHECK(z[i] == (i < 12 ? x[i] : -1.0f));
  }
  SECTION("with the store masked like the load") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      auto mask = offs < 12;
      tl::store(tl::ptr<float>{&bz} + offs, tl::load(tl::ptr<const float>{&bx} + offs, mask), mask);
    });
    REQUIRE_CLEAN(r);
    for (int i = 0; i < 12; ++i) CHECK(z[i] == x[i]);
    CHECK(bz.unwritten_count() == 4);
  }
  SECTION("cleaned with where before a reduction") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs < 12);
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0), tl::sum(tl::where(offs < 12, v, 0)));
    });
    REQUIRE_CLEAN(r);
    CHECK(z[0] == 36.0f);  // 1 + ... + 8
    CHECK(z[1] == 42.0f);  // 9 + ... + 12
  }
}

// ---------------------------------------------------------------------------------------------
// uninitialized-read

TEST_CASE("reading what nothing wrote, or using poison as a mask, offset or branch, is reported "
          "as uninitialized-read",
          "[sim][uninitialized-read]") {
  int line = 0;
  SECTION("loading an output element nobody wrote") {
    std::vector<float> z(8);
    auto bz = output("z", z);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz}, [&] {
      tl::store(tl::ptr<float>{&bz} + tl::arange<4>(), 1.0f);
      line = __LINE__; auto v = tl::load(tl::ptr<float>{&bz} + tl::arange<8>());
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "uninitialized-read");
    CHECK(d.program == program_id3{0, 0, 0});
    CHECK(d.buffer == "z");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{4, 5, 6, 7});
    CHECK(offsets_of(d) == std::vector<long long>{4, 5, 6, 7});
  }
  SECTION("a mask computed from poison") {
    auto x = ramp(8, -2.0f);
    std::vector<float> z(8);
    auto bx = input("x", x);
    auto bz = output("z", z);
    int load_line = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
      auto i = tl::arange<8>();
      load_line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + i, i < 5);  // 5..7 poison
      line = __LINE__; tl::store(tl::ptr<float>{&bz} + i, 1.0f, v > 0.0f);
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "uninitialized-read");
    CHECK(d.buffer == "z");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{5, 6, 7});
    CHECK_THAT(d.message, Catch::Contains("poison mask"));
    CHECK_THAT(d.message, Catch::Contains("The mask was computed from poison. The poison comes "
                                          "from the masked load without `other` at tests/" +
                                          at_line(load_line)));
  }
  SECTION("offsets computed from poison") {
    std::vector<int> idx{3, 2, 1, 0};
    auto x = ramp(8);
    auto bi = input("idx", idx);
    auto bx = input("x", x);
    int load_line = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bi, &bx}, [&] {
      auto i = tl::arange<8>();
      load_line = __LINE__; auto gather = tl::load(tl::ptr<const int>{&bi} + i, i < 4);  // 4..7
      line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + gather);
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "uninitialized-read");
    CHECK(d.buffer == "x");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{4, 5, 6, 7});
    CHECK_THAT(d.message, Catch::Contains("the masked load without `other` at tests/" +
                                          at_line(load_line)));
  }
  SECTION("branching on a poison scalar") {
    auto x = ramp(8);
    auto bx = input("x", x);
    bool branched = false;
    int load_line = 0;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      auto i = tl::arange<8>();
      load_line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + i, i < 4);
      line = __LINE__; if (tl::sum(v) > 0.0f) branched = true;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "uninitialized-read");
    CHECK(r.error->program == program_id3{0, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    CHECK_THAT(r.error->message, Catch::Contains("the masked load without `other` at tests/" +
                                                 at_line(load_line)));
    CHECK(r.error->cause == "the masked load without `other` at tests/" + at_line(load_line));
    CHECK_FALSE(branched);
  }
}

TEST_CASE("reading your own writes, host inputs, and switched-off lanes of an output is clean",
          "[sim][uninitialized-read]") {
  auto x = ramp(8, -2.0f);
  std::vector<float> z(16);
  auto bx = input("x", x);
  auto bz = output("z", z);
  float total = 0;
  const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
    auto i = tl::arange<8>();
    auto offs = tl::program_id(0) * 8 + i;
    auto v = tl::load(tl::ptr<const float>{&bx} + i, i < 5, 0.0f);
    tl::store(tl::ptr<float>{&bz} + offs, v, i < 4);                     // writes 4 of 8
    auto back = tl::load(tl::ptr<float>{&bz} + offs, i < 4);            // reads only those
    tl::store(tl::ptr<float>{&bz} + offs, tl::where(i < 4, back * 2, 0), v > -10.0f);  // mask from clean data
    if (tl::sum(v) > 0.0f) total += tl::sum(v);
  });
  REQUIRE_CLEAN(r);
  CHECK(z[0] == -4.0f);
  CHECK(z[3] == 2.0f);
  CHECK(z[4] == 0.0f);
  CHECK(z[11] == 2.0f);
  CHECK(total == 0.0f);  // -2 - 1 + 0 + 1 + 2 = 0: the branch is not taken
  CHECK(bz.unwritten_count() == 0);
}

// ---------------------------------------------------------------------------------------------
// race-write-write

TEST_CASE("two programs writing the same element are reported as race-write-write",
          "[sim][race-write-write]") {
  std::vector<float> z(8);
  auto bz = output("z", z);
  int line = 0;
  auto kernel = [&] {
    line = __LINE__; tl::store(tl::ptr<float>{&bz} + tl::arange<8>(), 1.0f);  // forgot program_id
  };
  SECTION("forward: the second program is caught") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bz}, kernel);
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "race-write-write");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(d.buffer == "z");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(offsets_of(d) == std::vector<long long>{0, 1, 2, 3});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK_THAT(d.lanes[0].note, Catch::Contains("by program (0, 0, 0)"));
    CHECK_THAT(d.message, Catch::Contains("8 lanes"));
  }
  SECTION("reverse: program 0 runs second and is caught") {
    const auto r = tl::sim::run_grid({2, 1, 1}, in_order(tl::sim::order::reverse), {&bz}, kernel);
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "race-write-write");
    CHECK(r.error->program == program_id3{0, 0, 0});
    REQUIRE_FALSE(r.error->lanes.empty());
    CHECK_THAT(r.error->lanes[0].note, Catch::Contains("by program (1, 0, 0)"));
  }
}

TEST_CASE("programs that each write their own elements, even twice, are clean in every order",
          "[sim][race-write-write]") {
  for (auto o : {tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle}) {
    std::vector<float> z(32);
    auto bz = output("z", z);
    const auto r = tl::sim::run_grid({4, 1, 1}, in_order(o, 3), {&bz}, [&] {
      auto offs = tl::program_id(0) * 8 + tl::arange<8>();
      tl::store(tl::ptr<float>{&bz} + offs, 0.0f);
      tl::store(tl::ptr<float>{&bz} + offs, offs + 1);  // overwriting your own element is fine
    });
    INFO(tl::sim::order_name(o));
    REQUIRE_CLEAN(r);
    for (int i = 0; i < 32; ++i) CHECK(z[i] == i + 1.0f);
  }
}


TEST_CASE("two lanes of one store writing one element are reported as race-write-write, in "
          "bulk and lane by lane",
          "[sim][race-write-write]") {
  for (bool lane_by_lane : {false, true}) {
    INFO((lane_by_lane ? "lane by lane" : "in bulk"));
    launch_options options;
    options.lane_by_lane = lane_by_lane;
    SECTION(std::string("a 1-D store whose offsets repeat (i / 2): ") +
            (lane_by_lane ? "lane by lane" : "in bulk")) {
      std::vector<float> z(8);
      auto bz = output("z", z);
      int line = 0;
      const auto r = tl::sim::run_grid({1, 1, 1}, options, {&bz}, [&] {
        line = __LINE__; tl::store(tl::ptr<float>{&bz} + tl::arange<8>() / 2, 1.0f);
      });
      REQUIRE(r.error.has_value());
      const diagnostic& d = *r.error;
      INFO(d.message);
      CHECK(d.kind == "race-write-write");
      CHECK(d.program == program_id3{0, 0, 0});
      CHECK(d.buffer == "z");
      CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
      CHECK(lanes_of(d) == std::vector<long long>{1, 3, 5, 7});
      CHECK(offsets_of(d) == std::vector<long long>{0, 1, 2, 3});
      CHECK_THAT(d.lanes[0].note, Catch::Contains("lane 0 at [0] writes it too"));
      CHECK_THAT(d.message, Catch::StartsWith("race-write-write: program (0, 0, 0): two lanes of "
                                              "this store write z[0]") &&
                                Catch::Contains("4 lanes") && Catch::Contains("undefined"));
    }
    SECTION(std::string("a 2-D store without its row stride (rows + cols): ") +
            (lane_by_lane ? "lane by lane" : "in bulk")) {
      std::vector<float> z(4 * 8);
      auto bz = output("z", z, {4, 8});
      const auto r = tl::sim::run_grid({1, 1, 1}, options, {&bz}, [&] {
        auto rows = tl::arange<4>();
        auto cols = tl::arange<8>();
        tl::store(tl::ptr<float>{&bz} + rows.col() + cols.row(), 1.0f);
      });
      REQUIRE(r.error.has_value());
      const diagnostic& d = *r.error;
      INFO(d.message);
      CHECK(d.kind == "race-write-write");
      REQUIRE_FALSE(d.lanes.empty());
      // Lane [1, 0] is the first to land on an element lane [0, 1] wrote: z[0, 1].
      CHECK(d.lanes[0].coords == std::vector<int>{1, 0});
      CHECK(d.lanes[0].offset == 1);
      CHECK_THAT(d.lanes[0].note, Catch::Contains("lane 1 at [0, 1] writes it too"));
      CHECK_THAT(d.message, Catch::Contains("two lanes of this store write z[0, 1]"));
    }
    SECTION(std::string("its twins run clean: repeated offsets masked off, lanes in reverse "
                        "order, one program storing an element twice in two stores: ") +
            (lane_by_lane ? "lane by lane" : "in bulk")) {
      std::vector<float> z(8);
      auto bz = output("z", z);
      const auto r = tl::sim::run_grid({1, 1, 1}, options, {&bz}, [&] {
        auto i = tl::arange<8>();
        tl::store(tl::ptr<float>{&bz} + i / 2, 1.0f, i % 2 == 0);
        tl::store(tl::ptr<float>{&bz} + (7 - i), tl::cast<float>(i));
        auto rows = tl::arange<2>();
        tl::store(tl::ptr<float>{&bz} + rows.col() * 4 + tl::arange<4>().row(), 2.0f,
                  rows.col() < 1);
      });
      REQUIRE_CLEAN(r);
      CHECK(z == std::vector<float>{2, 2, 2, 2, 3, 2, 1, 0});
    }
  }
}

// ---------------------------------------------------------------------------------------------
// race-read-write

namespace {
// Each program updates its block of `a` in place from the NEXT program's block: a planted race.
struct rotate_lines {
  int load = 0, store = 0;
};
auto rotate_in_place(tl::sim::buffer& ba, rotate_lines& line) {
  return [&ba, &line] {
    const int p = tl::program_id(0), n = tl::num_programs(0);
    tl::ptr<float> a{&ba};
    line.load = __LINE__; auto next = tl::load(a + ((p + 1) % n) * 4 + tl::arange<4>());
    line.store = __LINE__; tl::store(a + p * 4 + tl::arange<4>(), next + 1.0f);
  };
}
}  // namespace

TEST_CASE("a program reading what another program of the launch writes is reported as "
          "race-read-write",
          "[sim][race-read-write]") {
  auto a = ramp(12);
  auto ba = input("a", a);
  rotate_lines line;
  SECTION("forward: the write after another program's read is caught") {
    const auto r = tl::sim::run_grid({3, 1, 1}, {}, {&ba}, rotate_in_place(ba, line));
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "race-read-write");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(d.buffer == "a");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line.store)));
    CHECK(offsets_of(d) == std::vector<long long>{4, 5, 6, 7});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK_THAT(d.lanes[0].note, Catch::Contains("read by program (0, 0, 0)"));
  }
  SECTION("reverse: the read after another program's write is caught") {
    const auto r =
        tl::sim::run_grid({3, 1, 1}, in_order(tl::sim::order::reverse), {&ba}, rotate_in_place(ba, line));
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "race-read-write");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(d.buffer == "a");
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line.load)));
    CHECK(offsets_of(d) == std::vector<long long>{8, 9, 10, 11});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK_THAT(d.lanes[0].note, Catch::Contains("written by program (2, 0, 0)"));
  }
  SECTION("shuffled, with any seed") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      auto fresh = ramp(12);
      auto bf = input("a", fresh);
      const auto r =
          tl::sim::run_grid({3, 1, 1}, in_order(tl::sim::order::shuffle, seed), {&bf}, rotate_in_place(bf, line));
      INFO("seed " << seed);
      REQUIRE(r.error.has_value());
      CHECK(r.error->kind == "race-read-write");
    }
  }
  SECTION("forward, when two programs read an element and the second then writes it") {
    // Program 0 reads a[0..3]; program 1 reads a[0..3] too and then writes them. On a GPU
    // program 0 may see the new values.
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&ba}, [&] {
      tl::ptr<float> a{&ba};
      auto v = tl::load(a + tl::arange<4>());
      if (tl::program_id(0) == 1) {
        line.store = __LINE__; tl::store(a + tl::arange<4>(), v * 2.0f);
      }
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "race-read-write");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line.store)));
    CHECK(offsets_of(d) == std::vector<long long>{0, 1, 2, 3});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK_THAT(d.lanes[0].note, Catch::Contains("read by program (0, 0, 0)"));
  }
}

TEST_CASE("reading one buffer and writing another, or updating your own block in place, is clean",
          "[sim][race-read-write]") {
  for (auto o : {tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle}) {
    INFO(tl::sim::order_name(o));
    auto a = ramp(12);
    auto c = ramp(12);
    std::vector<float> b(12);
    auto ba = input("a", a);
    auto bb = output("b", b);
    auto bc = input("c", c);
    const auto r = tl::sim::run_grid({3, 1, 1}, in_order(o, 11), {&ba, &bb, &bc}, [&] {
      const int p = tl::program_id(0), n = tl::num_programs(0);
      auto next = tl::load(tl::ptr<const float>{&ba} + ((p + 1) % n) * 4 + tl::arange<4>());
      tl::store(tl::ptr<float>{&bb} + p * 4 + tl::arange<4>(), next + 1.0f);  // out of place
      tl::ptr<float> pc{&bc};
      auto mine = tl::load(pc + p * 4 + tl::arange<4>());
      tl::store(pc + p * 4 + tl::arange<4>(), mine * 10.0f);  // in place, own block only
      auto again = tl::load(pc + p * 4 + tl::arange<4>());   // reading your own write
      tl::store(pc + p * 4 + tl::arange<4>(), again + 1.0f);
    });
    REQUIRE_CLEAN(r);
    for (int i = 0; i < 12; ++i) {
      CHECK(b[i] == static_cast<float>((i + 4) % 12) + 1.0f);
      CHECK(c[i] == 10.0f * i + 1.0f);
      CHECK(a[i] == static_cast<float>(i));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// index-overflow

TEST_CASE("offsets past int32 are reported as index-overflow at the step that left int32",
          "[sim][index-overflow]") {
  auto x = ramp(8);
  std::vector<float> z(8);
  auto bx = input("x", x);
  auto bz = output("z", z);
  const int stride = 1'000'000'000;  // lane 3 is 3e9: past INT_MAX
  int line = 0;
  SECTION("in a load") {
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>() * stride);
      (void)v;
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    // the multiplication leaves int32 before the load sees lanes 1 and 2 out of bounds
    CHECK(d.kind == "index-overflow");
    CHECK(d.program == program_id3{0, 0, 0});
    CHECK_THAT(d.message, Catch::Contains("multiplication"));
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{3});
    CHECK(offsets_of(d) == std::vector<long long>{3'000'000'000LL});
  }
  SECTION("in a store, below INT_MIN") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bz}, [&] {
      // program 0: 0 (its lanes 1 to 3, also on 0, masked off: two lanes of one store on one
      // element are a race); program 1: 0, -1e9, -2e9, -3e9
      line = __LINE__; auto offs = tl::arange<4>() * tl::program_id(0) * (-stride);
      tl::store(tl::ptr<float>{&bz} + offs, 0.0f, tl::arange<4>() < 1 + 3 * tl::program_id(0));
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "index-overflow");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK(lanes_of(d) == std::vector<long long>{3});  // -2e9 still fits; it is only out of bounds
    CHECK(offsets_of(d) == std::vector<long long>{-3'000'000'000LL});
  }
  SECTION("in an int tile that holds a lane past int32") {
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {}, [&] {
      tl::tile<int, 4> t = tl::arange<4>() * stride;
      (void)t;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "index-overflow");
    CHECK(r.error->program == program_id3{0, 0, 0});
    CHECK_THAT(r.error->message, Catch::Contains("3000000000"));
  }
}

TEST_CASE("offsets inside int32, and overflowing lanes that are masked off, are clean",
          "[sim][index-overflow]") {
  auto x = ramp(8, 1.0f);
  std::vector<float> z(8);
  auto bx = input("x", x);
  auto bz = output("z", z);
  int stride = 1'000'000'000;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    auto i = tl::arange<4>();
    auto far = i * stride;                                               // lanes 1..3 far away
    auto first = tl::load(tl::ptr<const float>{&bx} + far, i < 1);      // only lane 0 active
    tl::store(tl::ptr<float>{&bz} + far, first, i < 1);
    auto near = tl::load(tl::ptr<const float>{&bx} + i * 2 + 1);        // 1, 3, 5, 7
    tl::store(tl::ptr<float>{&bz} + i + 4, near);
    tl::store(tl::ptr<float>{&bz} + 1 + i, 0.0f, i < 3);
  });
  REQUIRE_CLEAN(r);
  CHECK(z == std::vector<float>{1, 0, 0, 0, 2, 4, 6, 8});
}

// ---------------------------------------------------------------------------------------------
// op-budget

TEST_CASE("a loop that never ends is stopped by the op budget and reported as op-budget",
          "[sim][op-budget]") {
  auto x = ramp(8);
  auto bx = input("x", x);
  launch_options opt;
  opt.op_budget = 50;
  int line = 0;
  const auto r = tl::sim::run_grid({3, 1, 1}, opt, {&bx}, [&] {
    tl::tile<float, 8> acc = 0.0f;
    const int n = 10;
    const int step = tl::program_id(0) == 2 ? 0 : 1;  // program 2 never advances
    for (int k = 0; k < n; k += step) {
      line = __LINE__; acc = acc + tl::load(tl::ptr<const float>{&bx} + tl::arange<8>());
    }
  });
  REQUIRE(r.error.has_value());
  const diagnostic& d = *r.error;
  INFO(d.message);
  CHECK(d.kind == "op-budget");
  CHECK(d.program == program_id3{2, 0, 0});
  CHECK(r.programs_run == 3);
  CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
  // Each trip is a load and an addition on data (every tile operation counts): programs 0 and 1
  // finish after 20; program 2 stops at its 51st.
  CHECK(r.ops == 20 + 20 + 51);
  CHECK_THAT(d.message, Catch::Contains("more than 50 tile operations"));
}

TEST_CASE("elementwise arithmetic on data tiles counts against the op budget too",
          "[sim][op-budget]") {
  auto x = ramp(8);
  auto bx = input("x", x);
  launch_options opt;
  opt.op_budget = 50;
  int line = 0;
  const auto r = tl::sim::run_grid({1, 1, 1}, opt, {&bx}, [&] {
    line = __LINE__; auto acc = tl::load(tl::ptr<const float>{&bx} + tl::arange<8>());
    for (int k = 0; k < 1000; ++k) acc = acc * 0.5f + 1.0f;  // a loop with no load or store
  });
  REQUIRE(r.error.has_value());
  const diagnostic& d = *r.error;
  CHECK(d.kind == "op-budget");
  CHECK(r.ops == 51);
  // The loop has no line of its own: the report names the last load before it.
  CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
  CHECK_THAT(d.message, Catch::Contains("The last load, store, reduction or dot was at"));
}

TEST_CASE("loops that end within the budget are clean: the budget is per program",
          "[sim][op-budget]") {
  auto x = ramp(8);
  std::vector<float> z(24);
  auto bx = input("x", x);
  auto bz = output("z", z);
  launch_options opt;
  opt.op_budget = 100;
  const auto r = tl::sim::run_grid({3, 1, 1}, opt, {&bx, &bz}, [&] {
    tl::tile<float, 8> acc = 0.0f;
    for (int k = 0; k < 40; ++k) acc = acc + tl::load(tl::ptr<const float>{&bx} + tl::arange<8>());
    tl::store(tl::ptr<float>{&bz} + tl::program_id(0) * 8 + tl::arange<8>(), acc);  // op 81
  });
  REQUIRE_CLEAN(r);
  CHECK(r.ops == 3 * 81);  // 243 over the launch, more than 100: the budget is per program
  CHECK(r.max_program_ops == 81);
  for (int i = 0; i < 24; ++i) CHECK(z[i] == 40.0f * x[i % 8]);
}

// ---------------------------------------------------------------------------------------------
// crash

TEST_CASE("an exception thrown by kernel code is reported as a crash of that program",
          "[sim][crash]") {
  std::vector<float> z(8);
  auto bz = output("z", z);
  SECTION("a std::exception") {
    const auto r = tl::sim::run_grid({4, 1, 1}, {}, {&bz}, [&] {
      if (tl::program_id(0) == 1) throw std::runtime_error("the kernel gave up");
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0), 1.0f);
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    CHECK(d.kind == "crash");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK(r.programs_run == 2);  // the launch stops at the crash
    CHECK_THAT(d.message, Catch::Contains("the kernel gave up"));
    CHECK_THAT(d.message, Catch::Contains("before its first tile operation"));
  }
  SECTION("the crash names the line of the program's last tile operation before it") {
    std::vector<float> x(8, 1.0f);
    auto bx = input("x", x);
    int line = 0;
    const auto r = tl::sim::run_grid({4, 1, 1}, {}, {&bx, &bz}, [&] {
      line = __LINE__; auto v = tl::load(tl::ptr<const float>{&bx} + tl::program_id(0));
      std::vector<float> small(1);
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0), small.at(tl::program_id(0)) + v);
    });
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    CHECK(d.kind == "crash");
    CHECK(d.program == program_id3{1, 0, 0});
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK_THAT(d.message, Catch::Contains("after its tile operation at "));
    CHECK_THAT(d.message, Catch::Contains(at_line(line)));
  }
  SECTION("an exception that is not a std::exception") {
    launch_result r;
    REQUIRE_NOTHROW(r = tl::sim::run_grid({4, 1, 1}, {}, {&bz}, [&] {
                      if (tl::program_id(0) == 2) throw 42;
                    }));
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "crash");
    CHECK(r.error->program == program_id3{2, 0, 0});
    CHECK(r.programs_run == 3);
  }
  SECTION("program_id of an axis that does not exist") {
    int line = 0;
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bz}, [&] {
      line = __LINE__; const int p = tl::program_id(3);
      (void)p;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "crash");
    CHECK(r.error->program == program_id3{0, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
  }
  SECTION("a load through a null pointer") {
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bz}, [&] {
      auto v = tl::load(tl::ptr<const float>{} + tl::arange<4>());
      (void)v;
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "crash");
    CHECK_FALSE(r.error->source.empty());
  }
}

TEST_CASE("the same kernel without the throw runs every program cleanly", "[sim][crash]") {
  std::vector<float> z(4);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({4, 1, 1}, {}, {&bz}, [&] {
    if (tl::program_id(0) == 99) throw std::runtime_error("never");
    tl::store(tl::ptr<float>{&bz} + tl::program_id(0), tl::program_id(0) * 1.5f);
  });
  REQUIRE_CLEAN(r);
  CHECK(r.programs_run == 4);
  CHECK(z == std::vector<float>{0.0f, 1.5f, 3.0f, 4.5f});
}

TEST_CASE("after a failed launch, kernel code outside a launch is refused", "[sim][crash]") {
  const auto r = tl::sim::run_grid({2, 1, 1}, {}, {}, [] { throw std::runtime_error("x"); });
  REQUIRE(r.error.has_value());
  // The launch's context is gone: a tile operation now must not run against a dead context.
  CHECK_THROWS_AS(tl::program_id(0), std::logic_error);
}

// ---------------------------------------------------------------------------------------------
// Determinism

TEST_CASE("program orders: forward and reverse are what they say, shuffle depends only on the seed",
          "[sim][determinism]") {
  using tl::sim::order;
  SECTION("forward is 0 .. n-1 and reverse is n-1 .. 0") {
    CHECK(tl::sim::program_order(5, in_order(order::forward)) == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(tl::sim::program_order(5, in_order(order::reverse)) == std::vector<int>{4, 3, 2, 1, 0});
  }
  SECTION("the same seed gives the same shuffled order twice, a permutation that is not forward") {
    const auto a = tl::sim::program_order(32, in_order(order::shuffle, 7));
    const auto b = tl::sim::program_order(32, in_order(order::shuffle, 7));
    CHECK(a == b);
    CHECK(std::set<int>(a.begin(), a.end()).size() == 32);
    CHECK(*std::min_element(a.begin(), a.end()) == 0);
    CHECK(*std::max_element(a.begin(), a.end()) == 31);
    CHECK(a != tl::sim::program_order(32, in_order(order::forward)));
    CHECK(a != tl::sim::program_order(32, in_order(order::reverse)));
  }
  SECTION("different seeds give different orders") {
    const auto s1 = tl::sim::program_order(32, in_order(order::shuffle, 1));
    const auto s2 = tl::sim::program_order(32, in_order(order::shuffle, 2));
    const auto s3 = tl::sim::program_order(32, in_order(order::shuffle, 3));
    CHECK(s1 != s2);
    CHECK(s2 != s3);
    CHECK(s1 != s3);
  }
  SECTION("the seed does not matter for forward and reverse") {
    CHECK(tl::sim::program_order(6, in_order(order::forward, 99)) ==
          tl::sim::program_order(6, in_order(order::forward, 1)));
    CHECK(tl::sim::program_order(6, in_order(order::reverse, 99)) ==
          tl::sim::program_order(6, in_order(order::reverse, 1)));
  }
}

TEST_CASE("run_grid runs the programs in program_order's order, the same twice",
          "[sim][determinism]") {
  const std::array<int, 3> grid{4, 2, 2};
  for (auto o : {tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle}) {
    INFO(tl::sim::order_name(o));
    auto record = [&] {
      std::vector<int> seen;
      const auto r = tl::sim::run_grid(grid, in_order(o, 5), {}, [&] {
        seen.push_back(tl::program_id(0) + 4 * (tl::program_id(1) + 2 * tl::program_id(2)));
      });
      REQUIRE_CLEAN(r);
      return seen;
    };
    const auto first = record();
    CHECK(first == tl::sim::program_order(16, in_order(o, 5)));
    CHECK(first == record());
  }
}

TEST_CASE("the same launch gives the same bits twice", "[sim][determinism]") {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = std::sin(0.37f * i) * 1e3f + 1e-3f * i;
  auto run = [&] {
    std::vector<float> z(8);
    auto bx = input("x", x);
    auto bz = output("z", z);
    const auto r = tl::sim::run_grid({8, 1, 1}, in_order(tl::sim::order::shuffle, 42), {&bx, &bz}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} + tl::program_id(0) * 8 + tl::arange<8>());
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0), tl::sum(tl::exp(v * 1e-3f) * v));
    });
    REQUIRE_CLEAN(r);
    return z;
  };
  const auto a = run();
  const auto b = run();
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  CHECK(a[0] != 0.0f);
}

// ---------------------------------------------------------------------------------------------
// Counters

TEST_CASE("counters after a launch match a hand count", "[sim][counters]") {
  auto x = ramp(10);
  std::vector<float> z(12);
  auto bx = input("x", x);
  auto bz = output("z", z);
  CHECK(bx.unwritten_count() == 0);
  CHECK(bz.unwritten_count() == 12);
  SECTION("a masked copy that reads every element twice") {
    // 3 programs of 4 lanes over 10 elements: program 2 has 2 lanes masked off.
    const auto r = tl::sim::run_grid({3, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::program_id(0) * 4 + tl::arange<4>();
      auto mask = offs < 10;
      auto v = tl::load(tl::ptr<const float>{&bx} + offs, mask);
      auto w = tl::load(tl::ptr<const float>{&bx} + offs, mask);
      tl::store(tl::ptr<float>{&bz} + offs, v + w, mask);
    });
    REQUIRE_CLEAN(r);
    CHECK(r.programs_run == 3);
    CHECK(r.ops == 3 * 4);  // two loads, an addition, a store
    CHECK(bx.counters.loads == 20);
    CHECK(bx.counters.masked_loads == 4);
    CHECK(bx.counters.load_bytes == 80);
    CHECK(bx.counters.max_element_reads == 2);
    CHECK(bx.counters.max_program_loads == 8);
    CHECK(bx.counters.stores == 0);
    CHECK(bz.counters.stores == 10);
    CHECK(bz.counters.masked_stores == 2);
    CHECK(bz.counters.store_bytes == 40);
    CHECK(bz.counters.max_element_writes == 1);
    CHECK(bz.counters.max_program_stores == 4);
    CHECK(bz.counters.loads == 0);
    CHECK(bz.unwritten_count() == 2);
    CHECK(bz.shadow[10].writer == tl::sim::never_written);
    CHECK(bz.shadow[9].writer == 2);
  }
  SECTION("every program reading the same block") {
    const auto r = tl::sim::run_grid({3, 1, 1}, {}, {&bx, &bz}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>());
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0), tl::max(v));
    });
    REQUIRE_CLEAN(r);
    CHECK(bx.counters.loads == 12);
    CHECK(bx.counters.masked_loads == 0);
    CHECK(bx.counters.max_element_reads == 3);
    CHECK(bx.counters.max_program_loads == 4);
    CHECK(bx.shadow[0].reads == 3);
    CHECK(bx.shadow[4].reads == 0);
    CHECK(bz.counters.stores == 3);
    CHECK(bz.counters.max_program_stores == 1);
    CHECK(bz.unwritten_count() == 9);
    CHECK(z[2] == 3.0f);
  }
  SECTION("the most times one program read one element survives later programs' reads") {
    // Program 0 reads x[0..3] three times; programs 1 and 2 read them once each.
    const auto r = tl::sim::run_grid({3, 1, 1}, {}, {&bx, &bz}, [&] {
      const int times = tl::program_id(0) == 0 ? 3 : 1;
      tl::tile<float, 4> acc = 0.0f;
      for (int k = 0; k < times; ++k) acc = acc + tl::load(tl::ptr<const float>{&bx} + tl::arange<4>());
      tl::store(tl::ptr<float>{&bz} + tl::program_id(0) * 4 + tl::arange<4>(), acc);
    });
    REQUIRE_CLEAN(r);
    CHECK(bx.counters.loads == 20);
    CHECK(bx.counters.max_element_reads == 5);
    CHECK(bx.counters.max_program_loads == 12);
    CHECK(bx.counters.max_program_element_reads == 3);
  }
}
