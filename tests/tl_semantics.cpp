// `tl` semantics against hand-computed values: creation, weak scalars, broadcasting, elementwise
// ops and math, masks, integer division, reductions, dot, tile assignment, program ids, poison.
//
// Every value is computed inside a simulator launch (tl::sim::run_grid), copied out, and checked
// outside it: a failing REQUIRE must not unwind through the simulator.

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

// The values and poison bits of a tile, row-major.
template <class T>
struct snapshot {
  std::vector<T> values;
  std::vector<bool> poison;

  bool any_poison() const {
    for (bool p : poison)
      if (p) return true;
    return false;
  }
};

// Evaluates any expression (lazy or data) into a tile and copies it out.
template <class E>
auto snap(const E& e) {
  const auto t = tl::materialize(e);
  using T = tl::value_of_t<E>;
  snapshot<T> s;
  for (long long i = 0; i < tl::shape_of_t<E>::size; ++i) {
    s.values.push_back(t.storage.value(i));
    s.poison.push_back(t.storage.poisoned(i));
  }
  return s;
}

// Runs `body` as the one program of a 1 x 1 x 1 launch; the launch must be clean.
template <class F>
void run_one(F&& body) {
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {}, std::forward<F>(body));
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  REQUIRE(r.programs_run == 1);
}

template <class T>
tl::sim::buffer input(const char* name, std::vector<T>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, tl::sim::dtype_name<T>(),
                         sizeof(T), data.data(), true);
}

template <class T>
tl::sim::buffer output(const char* name, std::vector<T>& data) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, tl::sim::dtype_name<T>(),
                         sizeof(T), data.data(), false);
}

template <class T>
std::vector<T> iota_values(int n, T start = T(0), T step = T(1)) {
  std::vector<T> v;
  for (int i = 0; i < n; ++i) v.push_back(start + step * static_cast<T>(i));
  return v;
}

std::vector<bool> no_poison(std::size_t n) { return std::vector<bool>(n, false); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Creation

TEST_CASE("arange<N> counts 0 to N-1 as an int tile of shape [N]", "[tl][creation]") {
  snapshot<int> s;
  run_one([&] { s = snap(tl::arange<8>()); });
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::arange<8>())>, tl::shape<8>>);
  STATIC_REQUIRE(std::is_same_v<tl::value_of_t<decltype(tl::arange<8>())>, int>);
  CHECK(s.values == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(s.poison == no_poison(8));
}

TEST_CASE("full and zeros fill every element of their shape with one value", "[tl][creation]") {
  SECTION("full<2, 4>(2.5f) is a float tile of 2.5") {
    using E = decltype(tl::full<2, 4>(2.5f));
    STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<E>, tl::shape<2, 4>>);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, float>);
    snapshot<float> s;
    run_one([&] { s = snap(tl::full<2, 4>(2.5f)); });
    CHECK(s.values == std::vector<float>(8, 2.5f));
    CHECK(s.poison == no_poison(8));
  }
  SECTION("full<4>(true) is a mask of all true") {
    snapshot<bool> s;
    run_one([&] { s = snap(tl::full<4>(true)); });
    CHECK(s.values == std::vector<bool>(4, true));
  }
  SECTION("zeros<int, 4, 2> is an int tile of 0") {
    using E = decltype(tl::zeros<int, 4, 2>());
    STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<E>, tl::shape<4, 2>>);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, int>);
    snapshot<int> s;
    run_one([&] { s = snap(tl::zeros<int, 4, 2>()); });
    CHECK(s.values == std::vector<int>(8, 0));
    CHECK(s.poison == no_poison(8));
  }
}

// ---------------------------------------------------------------------------------------------
// Weak scalars

TEST_CASE("a C++ scalar takes the tile's type when both are of one kind, as Triton's weak scalars",
          "[tl][types]") {
  SECTION("an int tile times 0.5 is a float tile (not truncated to int)") {
    using E = decltype(tl::arange<4>() * 0.5);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, float>);
    snapshot<float> s;
    run_one([&] { s = snap(tl::arange<4>() * 0.5); });
    CHECK(s.values == std::vector<float>{0.0f, 0.5f, 1.0f, 1.5f});
  }
  SECTION("a float tile times the int 2 stays float") {
    using E = decltype(tl::full<4>(1.25f) * 2);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, float>);
    snapshot<float> s;
    run_one([&] { s = snap(tl::full<4>(1.25f) * 2); });
    CHECK(s.values == std::vector<float>(4, 2.5f));
  }
  SECTION("a float tile times the double 2.0 stays float, not double") {
    using E = decltype(tl::full<4>(1.25f) * 2.0);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, float>);
    snapshot<float> s;
    run_one([&] { s = snap(tl::full<4>(1.25f) * 2.0); });
    CHECK(s.values == std::vector<float>(4, 2.5f));
  }
  SECTION("an int tile times the int 3 stays int") {
    using E = decltype(tl::arange<4>() * 3);
    STATIC_REQUIRE(std::is_same_v<tl::value_of_t<E>, int>);
    snapshot<int> s;
    run_one([&] { s = snap(3 * tl::arange<4>()); });
    CHECK(s.values == std::vector<int>{0, 3, 6, 9});
  }
  SECTION("an int tile divided by the int 2 is integer division, by 2.0 true division") {
    snapshot<int> si;
    snapshot<float> sf;
    run_one([&] {
      si = snap(tl::arange<4>() / 2);
      sf = snap(tl::arange<4>() / 2.0);
    });
    CHECK(si.values == std::vector<int>{0, 0, 1, 1});
    CHECK(sf.values == std::vector<float>{0.0f, 0.5f, 1.0f, 1.5f});
  }
  SECTION("a loaded float tile plus a double scalar stays float") {
    std::vector<float> x{1.0f, 2.0f, 3.0f, 4.0f};
    auto bx = input("x", x);
    snapshot<float> s;
    bool is_float = false;
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>()) + 0.25;
      is_float = std::is_same_v<tl::value_of_t<decltype(v)>, float>;
      s = snap(v);
    });
    REQUIRE_FALSE(r.error.has_value());
    CHECK(is_float);
    CHECK(s.values == std::vector<float>{1.25f, 2.25f, 3.25f, 4.25f});
  }
}

// ---------------------------------------------------------------------------------------------
// Broadcasting

TEST_CASE("a column [N, 1] and a row [1, M] broadcast to an [N, M] grid", "[tl][broadcast]") {
  using E = decltype(tl::arange<4>().col() * 10 + tl::arange<8>().row());
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<E>, tl::shape<4, 8>>);
  snapshot<int> s;
  run_one([&] { s = snap(tl::arange<4>().col() * 10 + tl::arange<8>().row()); });
  REQUIRE(s.values.size() == 32);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) CHECK(s.values[r * 8 + c] == 10 * r + c);
}

TEST_CASE(".col() and .row() are expand_dims<1> and expand_dims<0>", "[tl][broadcast]") {
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::arange<4>().col())>, tl::shape<4, 1>>);
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::arange<4>().row())>, tl::shape<1, 4>>);
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::expand_dims<0>(tl::arange<4>()))>,
                                tl::shape<1, 4>>);
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::expand_dims<1>(tl::arange<4>()))>,
                                tl::shape<4, 1>>);
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::expand_dims<2>(
                                    tl::arange<2>().col() + tl::arange<4>().row()))>,
                                tl::shape<2, 4, 1>>);
  STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<decltype(tl::expand_dims<1>(
                                    tl::arange<2>().col() + tl::arange<4>().row()))>,
                                tl::shape<2, 1, 4>>);

  snapshot<int> col, row, mid;
  run_one([&] {
    col = snap(tl::arange<4>().col());
    row = snap(tl::expand_dims<0>(tl::arange<4>()));
    // [2, 1, 4] + [4, 1]: the new middle axis takes the column's values.
    mid = snap(tl::expand_dims<1>(tl::arange<2>().col() * 100 + tl::arange<4>().row()) +
               tl::arange<4>().col() * 10);
  });
  CHECK(col.values == std::vector<int>{0, 1, 2, 3});
  CHECK(row.values == std::vector<int>{0, 1, 2, 3});
  REQUIRE(mid.values.size() == 2 * 4 * 4);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 4; ++c) CHECK(mid.values[(a * 4 + b) * 4 + c] == 100 * a + 10 * b + c);
}

TEST_CASE("shapes of different ranks are aligned from the right", "[tl][broadcast]") {
  SECTION("[2, 4] + [4] repeats the [4] along the rows") {
    using E = decltype(tl::zeros<int, 2, 4>() + tl::arange<4>());
    STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<E>, tl::shape<2, 4>>);
    snapshot<int> s;
    run_one([&] { s = snap(tl::full<2, 4>(100) + tl::arange<4>()); });
    CHECK(s.values == std::vector<int>{100, 101, 102, 103, 100, 101, 102, 103});
  }
  SECTION("[2, 1, 4] + [8, 1] is [2, 8, 4]") {
    using E = decltype(tl::zeros<int, 2, 1, 4>() + tl::arange<8>().col());
    STATIC_REQUIRE(std::is_same_v<tl::shape_of_t<E>, tl::shape<2, 8, 4>>);
    snapshot<int> s;
    run_one([&] { s = snap(tl::zeros<int, 2, 1, 4>() + tl::arange<8>().col()); });
    REQUIRE(s.values.size() == 64);
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 8; ++b)
        for (int c = 0; c < 4; ++c) CHECK(s.values[(a * 8 + b) * 4 + c] == b);
  }
  SECTION("a rank-0 scalar tile broadcasts to anything") {
    snapshot<float> s;
    std::vector<float> x{3.0f};
    auto bx = input("x", x);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      auto one = tl::load(tl::ptr<const float>{&bx});  // rank 0: a single pointer
      s = snap(one + tl::arange<2>().col() * 10 + tl::arange<2>().row());
    });
    REQUIRE_FALSE(r.error.has_value());
    CHECK(s.values == std::vector<float>{3.0f, 4.0f, 13.0f, 14.0f});
  }
}

TEST_CASE("data tiles broadcast like lazy ones", "[tl][broadcast]") {
  std::vector<float> x{1.0f, 2.0f, 3.0f, 4.0f};
  auto bx = input("x", x);
  snapshot<float> outer, inner;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>());
    outer = snap(v.col() * v.row());                // [4, 1] * [1, 4]
    inner = snap(v.col() + tl::arange<2>().row());  // data [4, 1] + lazy [1, 2]
  });
  REQUIRE_FALSE(r.error.has_value());
  REQUIRE(outer.values.size() == 16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK(outer.values[i * 4 + j] == x[i] * x[j]);
  CHECK(inner.values == std::vector<float>{1, 2, 2, 3, 3, 4, 4, 5});
}

// ---------------------------------------------------------------------------------------------
// Elementwise operations and math

TEST_CASE("arithmetic operators work lane by lane", "[tl][elementwise]") {
  std::vector<float> x{-2.0f, -0.5f, 0.0f, 3.0f};
  auto bx = input("x", x);
  snapshot<float> sum, diff, prod, quot, neg;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>());
    sum = snap(v + tl::arange<4>());
    diff = snap(1.0f - v);
    prod = snap(v * v);
    quot = snap(v / 2);
    neg = snap(-v);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(sum.values == std::vector<float>{-2.0f, 0.5f, 2.0f, 6.0f});
  CHECK(diff.values == std::vector<float>{3.0f, 1.5f, 1.0f, -2.0f});
  CHECK(prod.values == std::vector<float>{4.0f, 0.25f, 0.0f, 9.0f});
  CHECK(quot.values == std::vector<float>{-1.0f, -0.25f, 0.0f, 1.5f});
  CHECK(neg.values == std::vector<float>{2.0f, 0.5f, -0.0f, -3.0f});
}

TEST_CASE("math functions give the textbook values", "[tl][elementwise]") {
  std::vector<float> x{0.0f, 1.0f, -1.0f, 2.0f, 4.0f, 0.5f, -2.5f, 16.0f};
  auto bx = input("x", x);
  snapshot<float> e, e2, l, sq, ab;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<8>());
    e = snap(tl::exp(v));
    e2 = snap(tl::exp2(v));
    l = snap(tl::log(tl::abs(v)));
    sq = snap(tl::sqrt(tl::abs(v)));
    ab = snap(tl::abs(v));
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(e.values[0] == 1.0f);
  CHECK(e.values[1] == Approx(2.718281828).epsilon(1e-6));
  CHECK(e.values[2] == Approx(0.367879441).epsilon(1e-6));
  CHECK(e.values[3] == Approx(7.389056099).epsilon(1e-6));
  CHECK(e2.values[0] == 1.0f);
  CHECK(e2.values[1] == 2.0f);
  CHECK(e2.values[2] == 0.5f);
  CHECK(e2.values[4] == 16.0f);
  CHECK(e2.values[5] == Approx(1.414213562).epsilon(1e-6));
  CHECK(l.values[1] == 0.0f);
  CHECK(l.values[3] == Approx(0.693147181).epsilon(1e-6));
  CHECK(l.values[0] == -std::numeric_limits<float>::infinity());  // log(0), IEEE, not poison
  CHECK_FALSE(l.poison[0]);
  CHECK(sq.values[4] == 2.0f);
  CHECK(sq.values[7] == 4.0f);
  CHECK(sq.values[5] == Approx(0.707106781).epsilon(1e-6));
  CHECK(ab.values == std::vector<float>{0.0f, 1.0f, 1.0f, 2.0f, 4.0f, 0.5f, 2.5f, 16.0f});
}

TEST_CASE("maximum, minimum, where and cast", "[tl][elementwise]") {
  std::vector<float> x{-2.0f, -0.5f, 0.0f, 3.0f, 2.7f, -2.7f, 1.5f, 8.0f};
  auto bx = input("x", x);
  snapshot<float> relu, capped, mx, chosen;
  snapshot<int> truncated, picks;
  snapshot<float> as_float;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<8>());
    relu = snap(tl::maximum(v, 0.0f));
    capped = snap(tl::minimum(v, 1));
    mx = snap(tl::maximum(v, tl::arange<8>()));
    chosen = snap(tl::where(v > 0.0f, v, 0));
    truncated = snap(tl::cast<int>(v));
    picks = snap(tl::where(tl::arange<8>() < 3, 1, 2));
    as_float = snap(tl::cast<float>(tl::arange<8>()) / 4);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(relu.values == std::vector<float>{0.0f, 0.0f, 0.0f, 3.0f, 2.7f, 0.0f, 1.5f, 8.0f});
  CHECK(capped.values == std::vector<float>{-2.0f, -0.5f, 0.0f, 1.0f, 1.0f, -2.7f, 1.0f, 1.0f});
  CHECK(mx.values == std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 8.0f});
  CHECK(chosen.values == std::vector<float>{0.0f, 0.0f, 0.0f, 3.0f, 2.7f, 0.0f, 1.5f, 8.0f});
  // C++ casts truncate toward zero.
  CHECK(truncated.values == std::vector<int>{-2, 0, 0, 3, 2, -2, 1, 8});
  CHECK(picks.values == std::vector<int>{1, 1, 1, 2, 2, 2, 2, 2});
  CHECK(as_float.values == std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f});
  STATIC_REQUIRE(std::is_same_v<
                 tl::value_of_t<decltype(tl::where(tl::arange<4>() < 2, tl::full<4>(1.0f), 0))>,
                 float>);
}

TEST_CASE("comparisons make masks, and & | ~ ! combine them", "[tl][masks]") {
  snapshot<bool> lt, ge, eq, ne, both, either, negated, bang;
  run_one([&] {
    auto i = tl::arange<8>();
    lt = snap(i < 3);
    ge = snap(i >= 5);
    eq = snap(i == 4);
    ne = snap(i != 4);
    both = snap((i >= 2) & (i < 6));
    either = snap((i < 2) | (i >= 6));
    negated = snap(~(i < 3));
    bang = snap(!(i < 3));
  });
  using B = std::vector<bool>;
  CHECK(lt.values == B{1, 1, 1, 0, 0, 0, 0, 0});
  CHECK(ge.values == B{0, 0, 0, 0, 0, 1, 1, 1});
  CHECK(eq.values == B{0, 0, 0, 0, 1, 0, 0, 0});
  CHECK(ne.values == B{1, 1, 1, 1, 0, 1, 1, 1});
  CHECK(both.values == B{0, 0, 1, 1, 1, 1, 0, 0});
  CHECK(either.values == B{1, 1, 0, 0, 0, 0, 1, 1});
  CHECK(negated.values == B{0, 0, 0, 1, 1, 1, 1, 1});
  CHECK(bang.values == negated.values);
  STATIC_REQUIRE(std::is_same_v<tl::value_of_t<decltype(tl::arange<4>() < 2)>, bool>);
}

TEST_CASE("& | ~ on int tiles are bitwise", "[tl][masks]") {
  snapshot<int> a, o, n;
  run_one([&] {
    auto i = tl::arange<8>();
    a = snap(i & 5);
    o = snap(i | 8);
    n = snap(~i);
  });
  CHECK(a.values == std::vector<int>{0, 1, 0, 1, 4, 5, 4, 5});
  CHECK(o.values == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(n.values == std::vector<int>{-1, -2, -3, -4, -5, -6, -7, -8});
}

TEST_CASE("integer / and % truncate toward zero like C++, not like Python", "[tl][integer]") {
  snapshot<int> q, m;
  run_one([&] {
    auto i = tl::arange<8>() - 4;  // -4 .. 3
    q = snap(i / 3);
    m = snap(i % 3);
  });
  CHECK(q.values == std::vector<int>{-1, -1, 0, 0, 0, 0, 0, 1});
  CHECK(m.values == std::vector<int>{-1, 0, -2, -1, 0, 1, 2, 0});
  CHECK_FALSE(q.any_poison());
  CHECK_FALSE(m.any_poison());
}

TEST_CASE("integer division by zero gives poison in that lane and no trap", "[tl][integer][poison]") {
  snapshot<int> q, m;
  snapshot<float> f;
  std::vector<int> x{6, 7, 8, 9};
  auto bx = input("x", x);
  snapshot<int> qd;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto i = tl::arange<8>();
    q = snap(i / (i - 2));  // lane 2 divides by zero
    m = snap(i % (i - 2));
    f = snap(tl::cast<float>(i) / (i - 2));  // float division: IEEE infinity, no poison
    auto d = tl::load(tl::ptr<const int>{&bx} + tl::arange<4>());
    qd = snap(d / (tl::arange<4>() - 1));  // data tile, lane 1 divides by zero
  });
  REQUIRE_FALSE(r.error.has_value());
  const std::vector<bool> lane2{false, false, true, false, false, false, false, false};
  CHECK(q.poison == lane2);
  CHECK(m.poison == lane2);
  CHECK(q.values[0] == 0);
  CHECK(q.values[1] == -1);
  CHECK(q.values[3] == 3);
  CHECK(q.values[7] == 1);
  CHECK(m.values[5] == 2);
  CHECK(m.values[7] == 2);
  CHECK(f.values[2] == std::numeric_limits<float>::infinity());
  CHECK_FALSE(f.any_poison());
  CHECK(qd.poison == std::vector<bool>{false, true, false, false});
  CHECK(qd.values[0] == -6);
  CHECK(qd.values[2] == 8);
  CHECK(qd.values[3] == 4);
}

// ---------------------------------------------------------------------------------------------
// Reductions

TEST_CASE("sum, max and min reduce along one axis and drop it", "[tl][reduce]") {
  // g[r][c] = 10 r + c on [4, 8]
  snapshot<int> rows, cols, mx, mn;
  bool shapes_ok = false;
  run_one([&] {
    auto g = tl::arange<4>().col() * 10 + tl::arange<8>().row();
    auto s1 = tl::sum<1>(g);
    auto s0 = tl::sum<0>(g);
    shapes_ok = std::is_same_v<tl::shape_of_t<decltype(s1)>, tl::shape<4>> &&
                std::is_same_v<tl::shape_of_t<decltype(s0)>, tl::shape<8>>;
    rows = snap(s1);
    cols = snap(s0);
    mx = snap(tl::max<1>(g));
    mn = snap(tl::min<0>(g));
  });
  CHECK(shapes_ok);
  CHECK(rows.values == std::vector<int>{28, 108, 188, 268});                   // 80 r + 28
  CHECK(cols.values == std::vector<int>{60, 64, 68, 72, 76, 80, 84, 88});      // 4 c + 60
  CHECK(mx.values == std::vector<int>{7, 17, 27, 37});
  CHECK(mn.values == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK_FALSE(rows.any_poison());
}

TEST_CASE("a reduction with tl::keep_dims keeps the axis with size 1, ready to broadcast back",
          "[tl][reduce]") {
  snapshot<int> kept, centered;
  bool shape_ok = false;
  run_one([&] {
    auto g = tl::arange<4>().col() * 10 + tl::arange<8>().row();
    auto m = tl::max<1>(g, tl::keep_dims);
    shape_ok = std::is_same_v<tl::shape_of_t<decltype(m)>, tl::shape<4, 1>>;
    kept = snap(m);
    centered = snap(g - m);
  });
  CHECK(shape_ok);
  CHECK(kept.values == std::vector<int>{7, 17, 27, 37});
  REQUIRE(centered.values.size() == 32);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) CHECK(centered.values[r * 8 + c] == c - 7);
}

TEST_CASE("a reduction along the middle axis of a 3-D tile", "[tl][reduce]") {
  // h[a][b][c] = 100 a + 10 b + c on [2, 4, 8]
  snapshot<int> s, k;
  bool shapes_ok = false;
  run_one([&] {
    auto h = tl::expand_dims<1>(tl::arange<2>().col() * 100 + tl::arange<8>().row()) +
             tl::arange<4>().col() * 10;
    auto r = tl::sum<1>(h);
    auto rk = tl::min<1>(h, tl::keep_dims);
    shapes_ok = std::is_same_v<tl::shape_of_t<decltype(h)>, tl::shape<2, 4, 8>> &&
                std::is_same_v<tl::shape_of_t<decltype(r)>, tl::shape<2, 8>> &&
                std::is_same_v<tl::shape_of_t<decltype(rk)>, tl::shape<2, 1, 8>>;
    s = snap(r);
    k = snap(rk);
  });
  CHECK(shapes_ok);
  REQUIRE(s.values.size() == 16);
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 8; ++c) {
      CHECK(s.values[a * 8 + c] == 400 * a + 60 + 4 * c);
      CHECK(k.values[a * 8 + c] == 100 * a + c);
    }
}

TEST_CASE("a reduction over everything is a rank-0 tile that converts to a scalar", "[tl][reduce]") {
  std::vector<float> x{0.5f, -3.0f, 2.0f, 7.25f, -1.0f, 0.0f, 4.0f, 1.5f};
  auto bx = input("x", x);
  int isum = 0, imax = 0, imin = 0;
  float fsum = 0, fmax = 0, fmin = 0;
  bool rank0 = false;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto g = tl::arange<4>().col() * 10 + tl::arange<8>().row();
    auto total = tl::sum(g);
    rank0 = std::is_same_v<tl::shape_of_t<decltype(total)>, tl::shape<>>;
    isum = total;
    imax = tl::max(g);
    imin = tl::min(g - 5);
    auto v = tl::load(tl::ptr<const float>{&bx} + tl::arange<2>().col() * 4 + tl::arange<4>().row());
    fsum = tl::sum(v);
    fmax = tl::max(v);
    fmin = tl::min(v);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(rank0);
  CHECK(isum == 592);  // 8 (0 + 10 + 20 + 30) + 4 (0 + 1 + ... + 7)
  CHECK(imax == 37);
  CHECK(imin == -5);
  CHECK(fsum == 11.25f);
  CHECK(fmax == 7.25f);
  CHECK(fmin == -3.0f);
}

// ---------------------------------------------------------------------------------------------
// dot

namespace {
constexpr int DM = 16, DK = 32, DN = 16;
float dot_a(int i, int k) { return static_cast<float>((i + 2 * k) % 5 - 2); }
float dot_b(int k, int j) { return static_cast<float>((3 * k + j) % 7 - 3); }
}  // namespace

TEST_CASE("dot multiplies [M, K] by [K, N], with and without an accumulator", "[tl][dot]") {
  std::vector<float> a(DM * DK), b(DK * DN);
  for (int i = 0; i < DM; ++i)
    for (int k = 0; k < DK; ++k) a[i * DK + k] = dot_a(i, k);
  for (int k = 0; k < DK; ++k)
    for (int j = 0; j < DN; ++j) b[k * DN + j] = dot_b(k, j);
  auto ba = input("a", a);
  auto bb = input("b", b);
  snapshot<float> plain, with_acc, lazy;
  bool shape_ok = false;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&ba, &bb}, [&] {
    auto ta = tl::load(tl::ptr<const float>{&ba} + tl::arange<DM>().col() * DK +
                       tl::arange<DK>().row());
    auto tb = tl::load(tl::ptr<const float>{&bb} + tl::arange<DK>().col() * DN +
                       tl::arange<DN>().row());
    auto c = tl::dot(ta, tb);
    shape_ok = std::is_same_v<tl::shape_of_t<decltype(c)>, tl::shape<DM, DN>> &&
               std::is_same_v<tl::value_of_t<decltype(c)>, float>;
    plain = snap(c);
    tl::tile<float, DM, DN> acc = tl::cast<float>(tl::arange<DM>().col() - tl::arange<DN>().row());
    with_acc = snap(tl::dot(ta, tb, acc));
    // A lazy operand, cast to the other operand's dtype (a and b have one dtype).
    lazy = snap(tl::dot(tl::cast<float>((tl::arange<DM>().col() + 2 * tl::arange<DK>().row()) % 5 - 2), tb));
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(shape_ok);
  REQUIRE(plain.values.size() == DM * DN);
  for (int i = 0; i < DM; ++i)
    for (int j = 0; j < DN; ++j) {
      float ref = 0;
      for (int k = 0; k < DK; ++k) ref += dot_a(i, k) * dot_b(k, j);
      CHECK(plain.values[i * DN + j] == ref);
      CHECK(with_acc.values[i * DN + j] == ref + static_cast<float>(i - j));
      CHECK(lazy.values[i * DN + j] == ref);
    }
  CHECK_FALSE(plain.any_poison());
}

TEST_CASE("dot adds each product with one fused multiply-add: the product is not rounded first",
          "[tl][dot]") {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 exactly, 1 + 2^-11 rounded to float (a tie, to even). From
  // acc = -(1 + 2^-11) a fused multiply-add leaves 2^-24; a multiplication then an addition 0.
  constexpr float x = 1.0f + 0x1p-12f, start = -(1.0f + 0x1p-11f);
  const float rounded_product = x * x;
  REQUIRE(rounded_product + start == 0.0f);  // the unfused result this test tells apart
  for (bool lane_by_lane : {false, true}) {
    INFO((lane_by_lane ? "lane by lane" : "in bulk"));
    tl::sim::launch_options options;
    options.lane_by_lane = lane_by_lane;
    snapshot<float> fused, later_k;
    const auto r = tl::sim::run_grid({1, 1, 1}, options, {}, [&] {
      // Only k = 0 (then k = 5) holds a product; the other products are 0 and change nothing.
      auto a = tl::where(tl::arange<16>().row() == 0, x, 0.0f) + tl::zeros<float, 16, 16>();
      auto b = tl::where(tl::arange<16>().col() == 0, x, 0.0f) + tl::zeros<float, 16, 16>();
      fused = snap(tl::dot(a, b, tl::full<16, 16>(start)));
      auto a5 = tl::where(tl::arange<16>().row() == 5, x, 1.0f) + tl::zeros<float, 16, 16>();
      auto b5 = tl::where(tl::arange<16>().col() == 5, x, 0.0f) + tl::zeros<float, 16, 16>();
      later_k = snap(tl::dot(a5, b5, tl::full<16, 16>(start)));
    });
    INFO((r.error ? r.error->message : std::string("no diagnostic")));
    REQUIRE_FALSE(r.error.has_value());
    CHECK(fused.values == std::vector<float>(16 * 16, 0x1p-24f));
    CHECK(later_k.values == std::vector<float>(16 * 16, 0x1p-24f));
  }
}

TEST_CASE("tl::round_to_tf32 rounds to 10 mantissa bits, to nearest with ties away from zero, "
          "as cvt.rna.tf32.f32",
          "[tl][dot][tf32]") {
  CHECK(tl::round_to_tf32(1.0f) == 1.0f);
  CHECK(tl::round_to_tf32(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f);          // already TF32
  CHECK(tl::round_to_tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);          // a tie: away from zero
  CHECK(tl::round_to_tf32(-(1.0f + 0x1p-11f)) == -(1.0f + 0x1p-10f));
  CHECK(tl::round_to_tf32(1.0f + 0x1p-10f + 0x1p-11f) == 1.0f + 0x1p-9f);
  CHECK(tl::round_to_tf32(1.0f + 0x1p-11f - 0x1p-23f) == 1.0f);          // under the tie
  CHECK(tl::round_to_tf32(1.9999999f) == 2.0f);                          // into the next binade
  CHECK(tl::round_to_tf32(0.1f) == 0x1.998p-4f);
  CHECK(tl::round_to_tf32(std::numeric_limits<float>::max()) == INFINITY);
  CHECK(tl::round_to_tf32(-INFINITY) == -INFINITY);
  CHECK(std::isnan(tl::round_to_tf32(NAN)));
  // A NaN whose payload sits in the low 13 bits stays NaN (clearing them would make it infinite).
  CHECK(std::isnan(tl::round_to_tf32(std::bit_cast<float>(0x7f800001u))));
  CHECK(std::signbit(tl::round_to_tf32(-0.0f)));
  static_assert(tl::round_to_tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f, "usable at compile time");
}

TEST_CASE("dot with tl::tf32 rounds both operands to TF32, then sums exactly as dot does",
          "[tl][dot][tf32]") {
  // a = 1 + 2^-11 (a tie: TF32 1 + 2^-10), b = 1 + 2^-12 (TF32 1): each product is 1 + 2^-10 in
  // TF32 and 1 + 2^-11 + 2^-12 + 2^-23 exactly.
  constexpr int D = 16;
  snapshot<float> exact, rounded, rounded_acc, rounded_no_acc;
  run_one([&] {
    auto a = tl::full<D, D>(1.0f + 0x1p-11f);
    auto b = tl::full<D, D>(1.0f + 0x1p-12f);
    exact = snap(tl::dot(a, b));
    rounded = snap(tl::dot(a, b, tl::zeros<float, D, D>(), tl::tf32));
    rounded_acc = snap(tl::dot(a, b, tl::full<D, D>(0.5f), tl::tf32));
    rounded_no_acc = snap(tl::dot(a, b, tl::tf32));
  });
  float exact_want = 0.0f, tf32_want = 0.0f;
  for (int k = 0; k < D; ++k) {
    exact_want += (1.0f + 0x1p-11f) * (1.0f + 0x1p-12f);
    tf32_want += 1.0f + 0x1p-10f;
  }
  CHECK(exact.values == std::vector<float>(D * D, exact_want));
  CHECK(rounded.values == std::vector<float>(D * D, tf32_want));
  CHECK(rounded_no_acc.values == rounded.values);
  CHECK(rounded_acc.values == std::vector<float>(D * D, 0.5f + tf32_want));
  CHECK(exact_want != tf32_want);
}

// ---------------------------------------------------------------------------------------------
// Data tiles

TEST_CASE("a tile is assigned from expressions and scalars, broadcasting to its shape",
          "[tl][tile]") {
  snapshot<float> fresh, from_scalar, from_int_expr, accumulated, broadcast_rows;
  run_one([&] {
    tl::tile<float, 4> untouched;
    fresh = snap(untouched);
    tl::tile<float, 4> t = 0.5f;
    from_scalar = snap(t);
    t = tl::cast<float>(tl::arange<4>() * 2);  // a tile keeps its dtype: int needs tl::cast
    from_int_expr = snap(t);
    for (int k = 0; k < 3; ++k) t = t + 1.0f;
    accumulated = snap(t);
    tl::tile<float, 2, 4> rows = tl::cast<float>(tl::arange<4>().row());
    broadcast_rows = snap(rows);
  });
  CHECK(fresh.poison == std::vector<bool>(4, true));  // nothing assigned it: poison
  CHECK(from_scalar.values == std::vector<float>(4, 0.5f));
  CHECK(from_scalar.poison == no_poison(4));
  CHECK(from_int_expr.values == std::vector<float>{0.0f, 2.0f, 4.0f, 6.0f});
  CHECK(accumulated.values == std::vector<float>{3.0f, 5.0f, 7.0f, 9.0f});
  CHECK(broadcast_rows.values == std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3});
  CHECK_FALSE(broadcast_rows.any_poison());
}

TEST_CASE("a single pointer loads and stores one element as a rank-0 tile", "[tl][tile]") {
  std::vector<float> x{1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> z(2, -1.0f);
  auto bx = input("x", x);
  auto bz = output("z", z);
  float got = 0;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    tl::ptr<const float> px{&bx};
    got = tl::load(px + 2);
    tl::store(tl::ptr<float>{&bz} + 1, tl::load(px + 3) * 10);
    tl::store(tl::ptr<float>{&bz}, 7.0f);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(got == 3.0f);
  CHECK(z == std::vector<float>{7.0f, 40.0f});
  CHECK(bz.unwritten_count() == 0);
}

// ---------------------------------------------------------------------------------------------
// Program ids

TEST_CASE("program_id and num_programs describe the launch grid", "[tl][grid]") {
  using id = std::array<int, 3>;
  auto collect = [](id grid, std::vector<id>& ids, std::vector<id>& counts) {
    return tl::sim::run_grid(grid, {}, {}, [&] {
      ids.push_back({tl::program_id(0), tl::program_id(1), tl::program_id(2)});
      counts.push_back({tl::num_programs(0), tl::num_programs(1), tl::num_programs(2)});
    });
  };
  SECTION("a 1-D grid runs programs 0 .. n-1, forward by default") {
    std::vector<id> ids, counts;
    const auto r = collect({5, 1, 1}, ids, counts);
    REQUIRE_FALSE(r.error.has_value());
    CHECK(r.programs_run == 5);
    CHECK(ids == std::vector<id>{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}});
    CHECK(counts == std::vector<id>(5, id{5, 1, 1}));
  }
  SECTION("a 2-D grid: axis 0 varies fastest") {
    std::vector<id> ids, counts;
    const auto r = collect({3, 2, 1}, ids, counts);
    REQUIRE_FALSE(r.error.has_value());
    CHECK(ids == std::vector<id>{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}});
    CHECK(counts == std::vector<id>(6, id{3, 2, 1}));
  }
  SECTION("a 3-D grid visits every coordinate exactly once") {
    std::vector<id> ids, counts;
    const auto r = collect({2, 3, 4}, ids, counts);
    REQUIRE_FALSE(r.error.has_value());
    CHECK(r.programs_run == 24);
    REQUIRE(ids.size() == 24);
    CHECK(std::set<id>(ids.begin(), ids.end()).size() == 24);
    for (std::size_t n = 0; n < ids.size(); ++n) {
      const id& p = ids[n];
      CHECK(p[0] + 2 * (p[1] + 3 * p[2]) == static_cast<int>(n));  // forward: linear order
      CHECK(p[0] < 2);
      CHECK(p[1] < 3);
      CHECK(p[2] < 4);
    }
    CHECK(ids[1] == id{1, 0, 0});
    CHECK(ids[2] == id{0, 1, 0});
    CHECK(ids[6] == id{0, 0, 1});
    CHECK(ids[23] == id{1, 2, 3});
    CHECK(counts == std::vector<id>(24, id{2, 3, 4}));
  }
}

// ---------------------------------------------------------------------------------------------
// Poison

TEST_CASE("a masked load without `other` gives poison in the switched-off lanes", "[tl][poison]") {
  std::vector<float> x{10, 11, 12, 13, 14, 15};
  auto bx = input("x", x);
  snapshot<float> v;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto i = tl::arange<8>();
    v = snap(tl::load(tl::ptr<const float>{&bx} + i, i < 6));
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(v.poison == std::vector<bool>{0, 0, 0, 0, 0, 0, 1, 1});
  for (int k = 0; k < 6; ++k) CHECK(v.values[k] == x[k]);
}

TEST_CASE("`other` replaces the switched-off lanes of a masked load", "[tl][poison]") {
  std::vector<float> x{10, 11, 12, 13, 14, 15};
  auto bx = input("x", x);
  snapshot<float> scalar_other, tile_other;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto i = tl::arange<8>();
    scalar_other = snap(tl::load(tl::ptr<const float>{&bx} + i, i < 6, -1.0f));
    tile_other = snap(tl::load(tl::ptr<const float>{&bx} + i, i < 6, i * 100));
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(scalar_other.values == std::vector<float>{10, 11, 12, 13, 14, 15, -1, -1});
  CHECK_FALSE(scalar_other.any_poison());
  CHECK(tile_other.values == std::vector<float>{10, 11, 12, 13, 14, 15, 600, 700});
  CHECK_FALSE(tile_other.any_poison());
}

TEST_CASE("poison spreads through arithmetic, math and reductions", "[tl][poison]") {
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  auto bx = input("x", x);
  snapshot<float> plus, times_zero, ex, relu, cmp_then_where, row_sums, all, col_max;
  snapshot<bool> compared;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto i = tl::arange<8>();
    auto v = tl::load(tl::ptr<const float>{&bx} + i, i < 6);  // lanes 6, 7 poison
    plus = snap(v + 1.0f);
    times_zero = snap(v * 0.0f);  // still poison: poison is not a number
    ex = snap(tl::exp(v));
    relu = snap(tl::maximum(v, 0.0f));
    compared = snap(v > 0.0f);
    all = snap(tl::sum(v));
    // [2, 4] where only the second row holds poison lanes.
    auto rows = tl::arange<2>().col();
    auto cols = tl::arange<4>().row();
    auto m = tl::load(tl::ptr<const float>{&bx} + rows * 4 + cols, rows * 4 + cols < 6);
    row_sums = snap(tl::sum<1>(m));
    col_max = snap(tl::max<0>(m));
  });
  REQUIRE_FALSE(r.error.has_value());
  const std::vector<bool> tail{0, 0, 0, 0, 0, 0, 1, 1};
  CHECK(plus.poison == tail);
  CHECK(times_zero.poison == tail);
  CHECK(ex.poison == tail);
  CHECK(relu.poison == tail);
  CHECK(compared.poison == tail);
  CHECK(plus.values[0] == 2.0f);
  CHECK(all.poison == std::vector<bool>{true});
  CHECK(row_sums.poison == std::vector<bool>{false, true});
  CHECK(row_sums.values[0] == 10.0f);
  CHECK(col_max.poison == std::vector<bool>{false, false, true, true});
  CHECK(col_max.values[0] == 5.0f);
  CHECK(col_max.values[1] == 6.0f);
}

TEST_CASE("where(mask, x, 0) clears poison, but only in the lanes it replaces", "[tl][poison]") {
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  auto bx = input("x", x);
  snapshot<float> cleared, half_cleared, summed;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto i = tl::arange<8>();
    auto v = tl::load(tl::ptr<const float>{&bx} + i, i < 6);
    cleared = snap(tl::where(i < 6, v, 0));
    half_cleared = snap(tl::where(i < 7, v, 0));  // lane 6 is chosen from v: still poison
    summed = snap(tl::sum(tl::where(i < 6, v, 0)));
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(cleared.values == std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0});
  CHECK_FALSE(cleared.any_poison());
  CHECK(half_cleared.poison == std::vector<bool>{0, 0, 0, 0, 0, 0, 1, 0});
  CHECK(summed.values == std::vector<float>{21.0f});
  CHECK_FALSE(summed.any_poison());
}

TEST_CASE("poison flows through dot along the rows of a and the columns of b", "[tl][poison][dot]") {
  std::vector<float> a(16 * 16, 1.0f);
  auto ba = input("a", a);
  snapshot<float> c;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&ba}, [&] {
    auto rows = tl::arange<16>().col();
    auto cols = tl::arange<16>().row();
    auto ta = tl::load(tl::ptr<const float>{&ba} + rows * 16 + cols, rows < 15);  // row 15 poison
    c = snap(tl::dot(ta, tl::full<16, 16>(2.0f)));
  });
  REQUIRE_FALSE(r.error.has_value());
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) CHECK(c.poison[i * 16 + j] == (i == 15));
  CHECK(c.values[0] == 32.0f);
}

TEST_CASE("compound assignment updates a data tile in place, as acc += x does in Triton") {
  std::vector<float> out(4, 0.0f);
  tl::sim::buffer z("z", {4}, "float32", sizeof(float), out.data(), false);
  const auto result = tl::sim::run_grid({1, 1, 1}, {}, {&z}, [&] {
    tl::tile<float, 4> acc = 1.0f;
    acc += tl::arange<4>();  // 1 2 3 4
    acc *= 2;                // 2 4 6 8
    acc -= 1.0f;             // 1 3 5 7
    acc /= tl::full<4>(2.0f);
    tl::store(tl::ptr<float>{&z} + tl::arange<4>(), acc);
  });
  REQUIRE_FALSE(result.error);
  CHECK(out == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f});
}

TEST_CASE("summing a mask counts its true lanes") {
  std::vector<float> out(2, 0.0f);
  tl::sim::buffer z("z", {2}, "float32", sizeof(float), out.data(), false);
  const auto result = tl::sim::run_grid({1, 1, 1}, {}, {&z}, [&] {
    auto mask = tl::arange<8>() < 5;
    const int count = tl::sum(mask);
    auto rows = tl::sum<1>((tl::arange<2>().col() * 8 + tl::arange<8>().row()) < 11);  // 8, 3
    tl::store(tl::ptr<float>{&z} + tl::arange<2>(), tl::cast<float>(rows) + (count - 5));
  });
  REQUIRE_FALSE(result.error);
  CHECK(out == std::vector<float>{8.0f, 3.0f});
}

// ---------------------------------------------------------------------------------------------
// tl::trans

TEST_CASE("trans turns [R, C] into [C, R]: element (i, j) is x(j, i), lazy or data",
          "[tl][trans]") {
  // g(r, c) = 10 r + c on [4, 8]; its transpose t(i, j) = 10 j + i on [8, 4].
  std::vector<float> x;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) x.push_back(static_cast<float>(10 * r + c));
  auto bx = input("x", x);
  snapshot<int> lazy, reshaped;
  snapshot<float> data, twice, col_sums, summed_back;
  bool shapes_ok = false;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto g = tl::arange<4>().col() * 10 + tl::arange<8>().row();
    auto t = tl::trans(g);
    auto loaded = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>().col() * 8 + tl::arange<8>().row());
    auto td = tl::trans(loaded);
    shapes_ok = std::is_same_v<tl::shape_of_t<decltype(t)>, tl::shape<8, 4>> &&
                std::is_same_v<tl::shape_of_t<decltype(td)>, tl::shape<8, 4>> &&
                std::is_same_v<tl::value_of_t<decltype(td)>, float>;
    lazy = snap(t);
    reshaped = snap(tl::reshape<8, 4>(g));  // the same shape, another element order
    data = snap(td);
    twice = snap(tl::trans(td));
    col_sums = snap(tl::sum<1>(td));        // the sums of g's columns
    summed_back = snap(tl::sum<0>(loaded));
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(shapes_ok);
  REQUIRE(lazy.values.size() == 32);
  REQUIRE(data.values.size() == 32);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(lazy.values[i * 4 + j] == 10 * j + i);
      CHECK(data.values[i * 4 + j] == static_cast<float>(10 * j + i));
    }
  CHECK(lazy.values != reshaped.values);  // the twin: a reshape keeps the row-major order
  CHECK(reshaped.values[1] == 1);
  CHECK(lazy.values[1] == 10);
  CHECK(twice.values == x);
  CHECK(col_sums.values == summed_back.values);
  CHECK(col_sums.values == std::vector<float>{60, 64, 68, 72, 76, 80, 84, 88});
  CHECK_FALSE(data.any_poison());
}

TEST_CASE("trans carries each lane's poison to its new place", "[tl][trans][poison]") {
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  auto bx = input("x", x);
  snapshot<float> m, t;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
    auto rows = tl::arange<2>().col();
    auto cols = tl::arange<4>().row();
    auto v = tl::load(tl::ptr<const float>{&bx} + rows * 4 + cols, rows * 4 + cols < 6);  // (1, 2), (1, 3)
    m = snap(v);
    t = snap(tl::trans(v) + 1.0f);
  });
  REQUIRE_FALSE(r.error.has_value());
  CHECK(m.poison == std::vector<bool>{0, 0, 0, 0, 0, 0, 1, 1});
  // [4, 2]: (2, 1) and (3, 1) are poison, flat 5 and 7; not the untransposed 6 and 7.
  CHECK(t.poison == std::vector<bool>{0, 0, 0, 0, 0, 1, 0, 1});
  for (int e : {0, 1, 2, 3, 4, 6}) CHECK(t.values[e] == std::vector<float>{2, 6, 3, 7, 4, 0, 5, 0}[e]);
}

TEST_CASE("dot(a, trans(b_rows)) is dot(a, b) for b_rows = b's transpose, poison along b's "
          "columns",
          "[tl][trans][dot]") {
  std::vector<float> a(DM * DK), bt(DN * DK);  // bt: b's transpose, [DN, DK], k contiguous
  for (int i = 0; i < DM; ++i)
    for (int k = 0; k < DK; ++k) a[i * DK + k] = dot_a(i, k);
  for (int j = 0; j < DN; ++j)
    for (int k = 0; k < DK; ++k) bt[j * DK + k] = dot_b(k, j);
  auto ba = input("a", a);
  auto bb = input("bt", bt);
  snapshot<float> c, c_lhs, poisoned;
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&ba, &bb}, [&] {
    auto ks = tl::arange<DK>();
    auto ta = tl::load(tl::ptr<const float>{&ba} + tl::arange<DM>().col() * DK + ks.row());
    auto cols = tl::arange<DN>();
    auto b_rows = tl::load(tl::ptr<const float>{&bb} + cols.col() * DK + ks.row());  // [DN, DK]
    c = snap(tl::dot(ta, tl::trans(b_rows)));
    // a given as the transpose of its [DK, DM] columns, read from the same memory.
    auto a_cols = tl::load(tl::ptr<const float>{&ba} + tl::arange<DM>().row() * DK + ks.col());
    c_lhs = snap(tl::dot(tl::trans(a_cols), tl::trans(b_rows)));
    // Row 3 of b_rows poison: column 3 of the product.
    auto partly = tl::load(tl::ptr<const float>{&bb} + cols.col() * DK + ks.row(), (cols != 3).col());
    poisoned = snap(tl::dot(ta, tl::trans(partly)));
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());
  REQUIRE(c.values.size() == DM * DN);
  for (int i = 0; i < DM; ++i)
    for (int j = 0; j < DN; ++j) {
      float ref = 0;
      for (int k = 0; k < DK; ++k) ref += dot_a(i, k) * dot_b(k, j);
      CHECK(c.values[i * DN + j] == ref);
      CHECK(c_lhs.values[i * DN + j] == ref);
      CHECK(poisoned.poison[i * DN + j] == (j == 3));
    }
  CHECK_FALSE(c.any_poison());
}

// ---------------------------------------------------------------------------------------------
// Scans, sorts and index reductions (tile/scan.hpp, tile/sort.hpp, tile/arg_reduce.hpp)

namespace {

// The scan's documented grouping, on the host: recursive doubling over the index bits, lowest
// first, with the partner block's total combined in front (docs/tl.md).
std::vector<float> doubling_cumsum(const std::vector<float>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<float> prefix = x, total = x;
  for (int bit = 1; bit < n; bit <<= 1) {
    std::vector<float> next_prefix = prefix, next_total = total;
    for (int i = 0; i < n; ++i) {
      const float partner = total[i ^ bit];
      if (i & bit) {
        next_prefix[i] = partner + prefix[i];
        next_total[i] = partner + total[i];
      } else {
        next_total[i] = total[i] + partner;
      }
    }
    prefix = next_prefix;
    total = next_total;
  }
  return prefix;
}

// The order tl::sort documents: numbers by <, -0 before +0, NaN last.
bool sorts_before(float a, float b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  if (a == b) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

std::vector<float> awkward_values(int n) {
  std::vector<float> v;
  const float specials[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1.5f, 1.5f, -2.0f};
  for (int i = 0; i < n; ++i)
    v.push_back(i % 5 == 0 ? specials[(i / 5) % 8] : static_cast<float>((i * 37) % 23) - 11.0f);
  return v;
}

}  // namespace

TEST_CASE("cumsum and cumprod: running sums and products along either axis, forward and reversed",
          "[tl][scan]") {
  constexpr int R = 4, C = 16;
  std::vector<int> x(R * C);
  for (int i = 0; i < R * C; ++i) x[i] = (i * 7) % 11 - 5;
  auto bx = input("x", x);
  snapshot<int> along_rows, along_cols, rows_reversed, products;
  run_one([&] {
    auto t = tl::load(tl::ptr<const int>{&bx} + tl::arange<R>().col() * C + tl::arange<C>().row());
    along_rows = snap(tl::cumsum<1>(t));
    along_cols = snap(tl::cumsum<0>(t));
    rows_reversed = snap(tl::cumsum<1>(t, tl::reverse));
    products = snap(tl::cumprod<0>(t));
  });
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      int row = 0, col = 0, rest = 0, prod = 1;
      for (int k = 0; k <= c; ++k) row += x[r * C + k];
      for (int k = 0; k <= r; ++k) col += x[k * C + c], prod *= x[k * C + c];
      for (int k = c; k < C; ++k) rest += x[r * C + k];
      INFO("row " << r << ", column " << c);
      CHECK(along_rows.values[r * C + c] == row);
      CHECK(along_cols.values[r * C + c] == col);
      CHECK(rows_reversed.values[r * C + c] == rest);
      CHECK(products.values[r * C + c] == prod);
    }
}

TEST_CASE("a float cumsum groups its sums by the index bits, not in sequence: the documented bits",
          "[tl][scan]") {
  constexpr int N = 64;
  std::vector<float> x(N);
  for (int i = 0; i < N; ++i) x[i] = 1.0f / static_cast<float>(3 + i) * (i % 2 ? -1.0f : 1.0f) * 1e3f;
  x[0] = -0.0f;
  auto bx = input("x", x);
  snapshot<float> sums, negative_zero;
  run_one([&] {
    auto t = tl::load(tl::ptr<const float>{&bx} + tl::arange<N>());
    sums = snap(tl::cumsum<0>(t));
    negative_zero = snap(tl::cumsum<0>(tl::full<4>(-0.0f)));
  });
  const std::vector<float> expected = doubling_cumsum(x);
  float sequential = 0.0f;
  int differs_from_sequential = 0;
  for (int i = 0; i < N; ++i) {
    INFO("lane " << i);
    CHECK(std::bit_cast<std::uint32_t>(sums.values[i]) == std::bit_cast<std::uint32_t>(expected[i]));
    sequential += x[i];
    CHECK(sums.values[i] == Approx(sequential).margin(1e-3));
    differs_from_sequential += sums.values[i] != sequential;
  }
  CHECK(differs_from_sequential > 0);  // else this test could not tell the two orders apart
  for (float v : negative_zero.values) CHECK(std::signbit(v));
}

TEST_CASE("associative_scan passes the earlier lanes first, and reversed the later ones",
          "[tl][scan]") {
  constexpr int N = 32;
  std::vector<int> x(N);
  for (int i = 0; i < N; ++i) x[i] = 100 + i;
  auto bx = input("x", x);
  snapshot<int> firsts, lasts, running_max;
  run_one([&] {
    auto t = tl::load(tl::ptr<const int>{&bx} + tl::arange<N>());
    auto keep_left = [](auto a, auto) { return a + 0; };  // associative, not commutative
    firsts = snap(tl::associative_scan<0>(t, keep_left));
    lasts = snap(tl::associative_scan<0>(t, keep_left, tl::reverse));
    running_max = snap(tl::associative_scan<0>(
        (t * 7) % 13, [](auto a, auto b) { return tl::maximum(a, b); }));
  });
  int best = -1;
  for (int i = 0; i < N; ++i) {
    best = std::max(best, (x[i] * 7) % 13);
    CHECK(firsts.values[i] == x[0]);
    CHECK(lasts.values[i] == x[N - 1]);
    CHECK(running_max.values[i] == best);
  }
}

TEST_CASE("a scan's lane is poison exactly when a lane it combines is", "[tl][scan][poison]") {
  constexpr int N = 16, first_masked = 9;
  std::vector<float> x(N, 1.0f);
  auto bx = input("x", x);
  snapshot<float> forward, reversed;
  run_one([&] {
    auto offs = tl::arange<N>();
    auto t = tl::load(tl::ptr<const float>{&bx} + offs, offs < first_masked);  // no other: poison
    forward = snap(tl::cumsum<0>(t));
    reversed = snap(tl::cumsum<0>(t, tl::reverse));
  });
  for (int i = 0; i < N; ++i) {
    INFO("lane " << i);
    CHECK(forward.poison[i] == (i >= first_masked));
    CHECK(reversed.poison[i]);  // every lane's reverse scan reaches the masked tail
    if (i < first_masked) CHECK(forward.values[i] == static_cast<float>(i + 1));
  }
}

TEST_CASE("an int32 cumsum that leaves int32 is index-overflow, and one whose sums fit is clean",
          "[tl][scan][int32]") {
  for (const bool overflows : {true, false}) {
    std::vector<int> x(8, overflows ? (1 << 29) : (1 << 27));  // 4 * 2^29 = 2^31 leaves int32
    auto bx = input("x", x);
    std::vector<int> z(8);
    auto bz = output("z", z);
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
      auto offs = tl::arange<8>();
      tl::store(tl::ptr<int>{&bz} + offs, tl::cumsum<0>(tl::load(tl::ptr<const int>{&bx} + offs)));
    });
    INFO((r.error ? r.error->message : std::string("no diagnostic")));
    if (overflows) {
      REQUIRE(r.error.has_value());
      CHECK(r.error->kind == std::string("index-overflow"));
    } else {
      REQUIRE_FALSE(r.error.has_value());
      CHECK(z[7] == 8 * (1 << 27));
    }
  }
}

TEST_CASE("sort orders numbers by <, -0 before +0 and NaN last, and moves every value",
          "[tl][sort]") {
  constexpr int R = 2, C = 64;
  std::vector<float> x = awkward_values(R * C);
  auto bx = input("x", x);
  snapshot<float> ascending, descending, down_columns;
  run_one([&] {
    auto t = tl::load(tl::ptr<const float>{&bx} + tl::arange<R>().col() * C + tl::arange<C>().row());
    ascending = snap(tl::sort<1>(t));
    descending = snap(tl::sort<1>(t, tl::descending));
    down_columns = snap(tl::sort<0>(t));
  });
  auto bits = [](float v) { return std::isnan(v) ? 0x7fc00000u : std::bit_cast<std::uint32_t>(v); };
  for (int r = 0; r < R; ++r) {
    std::vector<float> row(x.begin() + r * C, x.begin() + (r + 1) * C);
    std::stable_sort(row.begin(), row.end(), sorts_before);
    for (int c = 0; c < C; ++c) {
      INFO("row " << r << ", column " << c);
      CHECK(bits(ascending.values[r * C + c]) == bits(row[c]));
      CHECK(bits(descending.values[r * C + c]) == bits(row[C - 1 - c]));
    }
  }
  for (int c = 0; c < C; ++c) {
    const float a = x[c], b = x[C + c];
    const bool swap = sorts_before(b, a);
    CHECK(bits(down_columns.values[c]) == bits(swap ? b : a));
    CHECK(bits(down_columns.values[C + c]) == bits(swap ? a : b));
  }
}

TEST_CASE("argmax and argmin: the first extreme, NaN winning, along an axis or over the tile",
          "[tl][argmax]") {
  constexpr int R = 4, C = 8;
  // Row 0: a tie between columns 2 and 6; row 1: NaN at 5 and 7; row 2: -0 and +0 tie at 0;
  // row 3: all equal.
  std::vector<float> x = {1, 2, 9, -4, 0, 3, 9, -4,         //
                          1, 2, 3, 4, 5, NAN, 6, NAN,       //
                          -0.0f, 0.0f, -1, -2, -3, -4, -5, -6,  //
                          7, 7, 7, 7, 7, 7, 7, 7};
  auto bx = input("x", x);
  snapshot<int> row_max, row_min, col_max_kept, flat_max, flat_min;
  run_one([&] {
    auto t = tl::load(tl::ptr<const float>{&bx} + tl::arange<R>().col() * C + tl::arange<C>().row());
    row_max = snap(tl::argmax<1>(t));
    row_min = snap(tl::argmin<1>(t));
    col_max_kept = snap(tl::argmax<0>(t, tl::keep_dims));
    flat_max = snap(tl::argmax(t));
    flat_min = snap(tl::argmin(tl::where(t == t, t, 0.0f)));
  });
  CHECK(row_max.values == std::vector<int>{2, 5, 0, 0});
  CHECK(row_min.values == std::vector<int>{3, 5, 7, 0});
  REQUIRE(col_max_kept.values.size() == C);
  CHECK(col_max_kept.values == std::vector<int>{3, 3, 0, 3, 3, 1, 0, 1});
  CHECK(flat_max.values == std::vector<int>{C + 5});  // the first NaN, row-major
  CHECK(flat_min.values == std::vector<int>{2 * C + 7});
}
