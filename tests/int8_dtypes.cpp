// tl::int8 and tl::uint8 (tile/dtypes.hpp) in the simulator: tiles loaded from and stored to
// 8-bit buffers, their arithmetic in int32, casts that keep the low 8 bits, and tl::dot of 8-bit
// tiles into an exact int32 accumulator, against values worked out by hand.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "checker/device_tensors.hpp"
#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

template <class F>
tl::sim::launch_result run_one(std::vector<tl::sim::buffer*> buffers, F&& body) {
  return tl::sim::run_grid({1, 1, 1}, {}, std::move(buffers), std::forward<F>(body));
}

std::string error_of(const tl::sim::launch_result& r) {
  return r.error ? r.error->kind + std::string(": ") + r.error->message : "no diagnostic";
}

}  // namespace

TEST_CASE("int8 and uint8 tiles load their bytes, compute in int32 and store the low 8 bits",
          "[tl][int8]") {
  std::vector<std::int8_t> a = {127, -128, -1, 100};
  std::vector<std::uint8_t> u = {255, 0, 128, 7};
  std::vector<std::int32_t> wide(10, 0);
  std::vector<std::int8_t> narrow(4, 0);
  std::vector<std::uint8_t> unarrow(4, 0);
  tl::sim::buffer ba("a", {4}, "int8", 1, a.data(), true);
  tl::sim::buffer bu("u", {4}, "uint8", 1, u.data(), true);
  tl::sim::buffer bw("wide", {10}, "int32", 4, wide.data(), false);
  tl::sim::buffer bn("narrow", {4}, "int8", 1, narrow.data(), false);
  tl::sim::buffer bun("unarrow", {4}, "uint8", 1, unarrow.data(), false);
  const auto r = run_one({&ba, &bu, &bw, &bn, &bun}, [&] {
    auto i = tl::arange<4>();
    auto x = tl::load(tl::ptr<const tl::int8>{&ba} + i);
    auto y = tl::load(tl::ptr<const tl::uint8>{&bu} + i);
    static_assert(std::is_same_v<tl::value_of_t<decltype(x)>, tl::int8>);
    auto sum = x + x;  // int32: 127 + 127 is 254, not -2
    static_assert(std::is_same_v<tl::value_of_t<decltype(sum)>, int>);
    tl::store(tl::ptr<int>{&bw} + i, sum);
    tl::store(tl::ptr<int>{&bw} + 4 + i, x * y);
    // A scalar next to an 8-bit tile is an int, as the lanes are: 1000 is not cut to 8 bits.
    static_assert(std::is_same_v<tl::value_of_t<decltype(x * 1000)>, int>);
    tl::store(tl::ptr<int>{&bw} + 8 + tl::arange<2>(),
              tl::load(tl::ptr<const tl::int8>{&ba} + tl::arange<2>()) * 1000 + 7);
    tl::store(tl::ptr<tl::int8>{&bn} + i, tl::cast<tl::int8>(sum));  // the low 8 bits
    tl::store(tl::ptr<tl::uint8>{&bun} + i, tl::cast<tl::uint8>(x));
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(wide[0] == 254);
  CHECK(wide[1] == -256);
  CHECK(wide[8] == 127007);
  CHECK(wide[9] == -127993);
  CHECK(wide[4] == 127 * 255);
  CHECK(wide[6] == -128);
  CHECK(narrow == std::vector<std::int8_t>{-2, 0, -2, -56});
  CHECK(unarrow == std::vector<std::uint8_t>{127, 128, 255, 100});
}

TEST_CASE("A float cast to int8 truncates toward zero, then keeps the low 8 bits", "[tl][int8]") {
  std::vector<float> in = {1.9f, -1.9f, 200.7f, -129.0f};
  std::vector<std::int8_t> out(4, 0);
  tl::sim::buffer bi("x", {4}, "float32", 4, in.data(), true);
  tl::sim::buffer bo("z", {4}, "int8", 1, out.data(), false);
  const auto r = run_one({&bi, &bo}, [&] {
    auto i = tl::arange<4>();
    tl::store(tl::ptr<tl::int8>{&bo} + i, tl::cast<tl::int8>(tl::load(tl::ptr<const float>{&bi} + i)));
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(out == std::vector<std::int8_t>{1, -1, -56, 127});
}

TEST_CASE("tl::dot of int8 or uint8 tiles adds their exact products into an int32 accumulator",
          "[tl][int8][dot]") {
  constexpr int M = 16, N = 16, K = 32;
  std::vector<std::int8_t> a(M * K);
  std::vector<std::uint8_t> ua(M * K), ub(K * N);
  std::vector<std::int8_t> b(K * N);
  for (int i = 0; i < M * K; ++i) a[i] = static_cast<std::int8_t>((i * 37) % 256 - 128);
  for (int i = 0; i < K * N; ++i) b[i] = static_cast<std::int8_t>((i * 91 + 5) % 256 - 128);
  for (int i = 0; i < M * K; ++i) ua[i] = static_cast<std::uint8_t>((i * 53) % 256);
  for (int i = 0; i < K * N; ++i) ub[i] = static_cast<std::uint8_t>((i * 29 + 3) % 256);
  std::vector<std::int32_t> out(2 * M * N, 0);
  tl::sim::buffer ba("a", {M, K}, "int8", 1, a.data(), true);
  tl::sim::buffer bb("b", {K, N}, "int8", 1, b.data(), true);
  tl::sim::buffer bua("ua", {M, K}, "uint8", 1, ua.data(), true);
  tl::sim::buffer bub("ub", {K, N}, "uint8", 1, ub.data(), true);
  tl::sim::buffer bo("z", {2 * M * N}, "int32", 4, out.data(), false);
  const auto r = run_one({&ba, &bb, &bua, &bub, &bo}, [&] {
    auto rows = tl::arange<M>(), cols = tl::arange<N>();
    auto ks = tl::arange<K>();
    auto x = tl::load(tl::ptr<const tl::int8>{&ba} + rows.col() * K + ks.row());
    auto y = tl::load(tl::ptr<const tl::int8>{&bb} + ks.col() * N + cols.row());
    auto ux = tl::load(tl::ptr<const tl::uint8>{&bua} + rows.col() * K + ks.row());
    auto uy = tl::load(tl::ptr<const tl::uint8>{&bub} + ks.col() * N + cols.row());
    tl::tile<int, M, N> acc = 1000;
    acc = tl::dot(x, y, acc);
    auto plain = tl::dot(ux, uy);
    static_assert(std::is_same_v<tl::value_of_t<decltype(plain)>, int>);
    tl::store(tl::ptr<int>{&bo} + rows.col() * N + cols.row(), acc);
    tl::store(tl::ptr<int>{&bo} + M * N + rows.col() * N + cols.row(), plain);
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long s = 1000, us = 0;
      for (int k = 0; k < K; ++k) {
        s += a[i * K + k] * b[k * N + j];
        us += ua[i * K + k] * ub[k * N + j];
      }
      INFO("[" << i << ", " << j << "]");
      CHECK(out[i * N + j] == s);
      CHECK(out[M * N + i * N + j] == us);
    }
}

TEST_CASE("An int8 dot whose int32 sum leaves int32 is an index-overflow diagnostic, and the same "
          "sum from a smaller start is fine",
          "[tl][int8][dot]") {
  // 16 products of 127 * 127 add 258064: from 2147400000 the sum leaves int32 (the GPU wraps).
  const int start = GENERATE(2147400000, 2147000000);
  constexpr int M = 16, N = 16, K = 16;
  std::vector<std::int8_t> ones(M * K, 127);
  std::vector<std::int32_t> out(M * N, 0);
  tl::sim::buffer ba("a", {M, K}, "int8", 1, ones.data(), true);
  tl::sim::buffer bo("z", {M, N}, "int32", 4, out.data(), false);
  const auto r = run_one({&ba, &bo}, [&] {
    auto rows = tl::arange<M>(), cols = tl::arange<N>();
    auto x = tl::load(tl::ptr<const tl::int8>{&ba} + rows.col() * K + cols.row());
    tl::tile<int, M, N> acc = start;
    tl::store(tl::ptr<int>{&bo} + rows.col() * N + cols.row(), tl::dot(x, x, acc));
  });
  if (start == 2147000000) {
    INFO(error_of(r));
    REQUIRE_FALSE(r.error.has_value());
    CHECK(out[0] == 2147000000 + 16 * 127 * 127);
  } else {
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == std::string("index-overflow"));
    CHECK_THAT(r.error->message, Catch::Contains("tl::dot's int32 accumulator at [0, 0]"));
  }
}

TEST_CASE("The checker's int8 and uint8 tensors go to the kernel as bytes and come back as ints, "
          "and a value outside the dtype is the puzzle's error",
          "[checker][int8]") {
  tp::tensor t;
  t.name = "q";
  t.shape = {4};
  t.dtype = tp::dtype::int8;
  t.ints = {-128, -1, 0, 127};
  auto bytes = tp::device_tensors::bytes_of(t);
  CHECK(bytes == std::vector<unsigned char>{0x80, 0xFF, 0x00, 0x7F});
  tp::tensor back = t;
  back.ints.clear();
  tp::device_tensors::read_back(back, bytes.data());
  CHECK(back.ints == t.ints);

  t.dtype = tp::dtype::uint8;
  t.ints = {0, 1, 128, 255};
  bytes = tp::device_tensors::bytes_of(t);
  back = t;
  back.ints.clear();
  tp::device_tensors::read_back(back, bytes.data());
  CHECK(back.ints == t.ints);

  t.ints = {0, 1, 256, 255};
  CHECK_THROWS_WITH(tp::device_tensors::bytes_of(t), Catch::Contains("holds 256, outside uint8"));
  t.output = true;  // poisoned: 255, whatever the values
  CHECK(tp::device_tensors::bytes_of(t) == std::vector<unsigned char>{255, 255, 255, 255});
}
