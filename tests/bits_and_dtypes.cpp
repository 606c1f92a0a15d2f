// Integer bit operations (tile/bits.hpp), tl::reshape, int32 tiles loaded from int32 buffers, and
// half-precision tiles (tile/dtypes.hpp) in the simulator, against values worked out by hand.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda/half_bits.hpp"
#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

// Runs `body` as one program over the given buffers and returns the launch's result.
template <class F>
tl::sim::launch_result run_one(std::vector<tl::sim::buffer*> buffers, F&& body) {
  return tl::sim::run_grid({1, 1, 1}, {}, std::move(buffers), std::forward<F>(body));
}

std::string error_of(const tl::sim::launch_result& r) {
  return r.error ? r.error->kind + std::string(": ") + r.error->message : "no diagnostic";
}

}  // namespace

TEST_CASE("<<, >> and ^ compute int32 bits: left shifts drop the bits shifted out, right shifts "
          "copy the sign",
          "[tl][bits]") {
  std::vector<std::int32_t> in = {static_cast<std::int32_t>(0x87654321u), 1, -16, 0x0F0F0F0F};
  std::vector<std::int32_t> out(16, 0);
  tl::sim::buffer bi("w", {4}, "int32", 4, in.data(), true);
  tl::sim::buffer bo("z", {16}, "int32", 4, out.data(), false);
  const auto r = run_one({&bi, &bo}, [&] {
    tl::ptr<const int> w{&bi};
    tl::ptr<int> z{&bo};
    auto lanes = tl::arange<4>();
    auto v = tl::load(w + lanes);
    tl::store(z + lanes, v >> 28);                       // arithmetic: 0x8... -> -8
    tl::store(z + 4 + lanes, (v >> 28) & 0xF);           // the top nibble, unsigned
    tl::store(z + 8 + lanes, v << 31);                   // only bit 0 survives, as the sign
    tl::store(z + 12 + lanes, v ^ 0x0F0F0F0F);
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(out[0] == -8);
  CHECK(out[1] == 0);
  CHECK(out[2] == -1);
  CHECK(out[3] == 0);
  CHECK(out[4] == 8);
  CHECK(out[6] == 0xF);
  CHECK(out[8] == INT32_MIN);  // 0x87654321 is odd
  CHECK(out[9] == INT32_MIN);
  CHECK(out[10] == 0);
  CHECK(out[12] == static_cast<std::int32_t>(0x87654321u ^ 0x0F0F0F0Fu));
  CHECK(out[15] == 0);
}

TEST_CASE("Shifts by a tile of counts unpack the eight 4-bit values of an int32, lowest first",
          "[tl][bits]") {
  std::vector<std::int32_t> in = {static_cast<std::int32_t>(0xFEDCBA98u), 0x76543210};
  std::vector<std::int32_t> out(16, -1);
  tl::sim::buffer bi("w", {2}, "int32", 4, in.data(), true);
  tl::sim::buffer bo("z", {16}, "int32", 4, out.data(), false);
  const auto r = run_one({&bi, &bo}, [&] {
    auto packed = tl::load(tl::ptr<const int>{&bi} + tl::arange<2>());
    auto nibbles = (packed.col() >> (tl::arange<8>() * 4).row()) & 0xF;   // [2, 8]
    tl::store(tl::ptr<int>{&bo} + tl::arange<16>(), tl::reshape<16>(nibbles));
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  const std::vector<std::int32_t> expected = {8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(out == expected);
}

TEST_CASE("A shift count outside 0..31 is an index-overflow diagnostic, and 31 is fine",
          "[tl][bits]") {
  const int count = GENERATE(32, -1, 31);
  std::vector<std::int32_t> out(4, 0);
  tl::sim::buffer bo("z", {4}, "int32", 4, out.data(), false);
  const auto r = run_one({&bo}, [&] {
    tl::store(tl::ptr<int>{&bo} + tl::arange<4>(), tl::arange<4>() << count);
  });
  if (count == 31) {
    INFO(error_of(r));
    CHECK_FALSE(r.error.has_value());
    CHECK(out[1] == INT32_MIN);
    CHECK(out[2] == 0);
  } else {
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == std::string("index-overflow"));
    CHECK_THAT(r.error->message, Catch::Contains("shift counts of int32 lanes must be 0 to 31"));
  }
}

TEST_CASE("^ on two masks is a logical exclusive or", "[tl][bits]") {
  std::vector<float> out(4, 0.0f);
  tl::sim::buffer bo("z", {4}, "float32", 4, out.data(), false);
  const auto r = run_one({&bo}, [&] {
    auto i = tl::arange<4>();
    tl::store(tl::ptr<float>{&bo} + i, tl::where((i < 2) ^ (i % 2 == 1), 1.0f, 0.0f));
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(out == std::vector<float>{1, 0, 0, 1});
}

TEST_CASE("Half tiles load, compute in float rounded back, and store their own bits",
          "[tl][half]") {
  using tl::bfloat16;
  using tl::float16;
  std::vector<float16> h = {float16(1.0f), float16(2049.0f), float16(0.1f), float16(-3.5f)};
  std::vector<bfloat16> b = {bfloat16(1.0f), bfloat16(257.0f), bfloat16(0.1f), bfloat16(-3.5f)};
  std::vector<float> out(12, 0.0f);
  std::vector<float16> hout(4);
  tl::sim::buffer bh("h", {4}, "float16", 2, h.data(), true);
  tl::sim::buffer bb("b", {4}, "bfloat16", 2, b.data(), true);
  tl::sim::buffer bo("z", {12}, "float32", 4, out.data(), false);
  tl::sim::buffer bho("zh", {4}, "float16", 2, hout.data(), false);
  const auto r = run_one({&bh, &bb, &bo, &bho}, [&] {
    auto i = tl::arange<4>();
    auto hv = tl::load(tl::ptr<const float16>{&bh} + i);
    auto bv = tl::load(tl::ptr<const bfloat16>{&bb} + i);
    tl::store(tl::ptr<float>{&bo} + i, tl::cast<float>(hv));
    tl::store(tl::ptr<float>{&bo} + 4 + i, tl::cast<float>(bv));
    // float16 + float16 is float16: 2048 + 1 rounds to 2048 (11 significant bits).
    tl::tile<float16, 4> sum = hv + hv * 0.5f;
    tl::store(tl::ptr<float>{&bo} + 8 + i, tl::cast<float>(sum));
    tl::store(tl::ptr<float16>{&bho} + i, tl::cast<float16>(tl::cast<float>(hv) * 3.0f));
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(out[1] == 2048.0f);                 // 2049 is not a float16
  CHECK(out[2] == static_cast<float>(float16(0.1f)));
  CHECK(out[5] == 256.0f);                  // 257 is not a bfloat16
  CHECK(out[8] == 1.5f);
  CHECK(out[9] == 3072.0f);                 // 2048 + 1024
  CHECK(out[11] == -5.25f);
  CHECK(static_cast<float>(hout[3]) == -10.5f);
}

TEST_CASE("tl::dot of float16 tiles accumulates their exact products in float32", "[tl][half]") {
  using tl::float16;
  // 1 + 2^-11 is not a float16, but the sum of 16 products 1 * 2^-11 is added in float32.
  std::vector<float16> a(16 * 16, float16(1.0f)), b(16 * 16, float16(0.00048828125f));
  std::vector<float> out(16 * 16, 0.0f);
  tl::sim::buffer ba("a", {16, 16}, "float16", 2, a.data(), true);
  tl::sim::buffer bb("b", {16, 16}, "float16", 2, b.data(), true);
  tl::sim::buffer bo("z", {16, 16}, "float32", 4, out.data(), false);
  const auto r = run_one({&ba, &bb, &bo}, [&] {
    auto offs = tl::arange<16>().col() * 16 + tl::arange<16>().row();
    tl::tile<float, 16, 16> acc = 1.0f;
    acc = tl::dot(tl::load(tl::ptr<const float16>{&ba} + offs),
                  tl::load(tl::ptr<const float16>{&bb} + offs), acc);
    tl::store(tl::ptr<float>{&bo} + offs, acc);
  });
  INFO(error_of(r));
  REQUIRE_FALSE(r.error.has_value());
  CHECK(out[0] == 1.0f + 16 * 0.00048828125f);
  CHECK(out[255] == 1.0f + 16 * 0.00048828125f);
}

TEST_CASE("maximum and minimum of half lanes follow the float rules: NaN wins, -0 < +0",
          "[tl][half]") {
  using tl::float16;
  const float16 nan(std::numeric_limits<float>::quiet_NaN()), one(1.0f);
  CHECK(Eigen::numext::isnan(tl::op::maximum{}(nan, one)));
  CHECK(Eigen::numext::isnan(tl::op::maximum{}(one, nan)));
  CHECK(Eigen::numext::isnan(tl::op::minimum{}(one, nan)));
  CHECK(std::signbit(static_cast<float>(tl::op::minimum{}(float16(0.0f), float16(-0.0f)))));
  CHECK_FALSE(std::signbit(static_cast<float>(tl::op::maximum{}(float16(-0.0f), float16(0.0f)))));
  CHECK(static_cast<float>(tl::op::maximum{}(float16(2.0f), float16(-3.0f))) == 2.0f);
}

TEST_CASE("The GPU's portable half conversions (cuda/half_bits.hpp) give Eigen's bits: every "
          "float16 and bfloat16 to float, and floats of every kind to both",
          "[tl][half]") {
  auto bits16 = [](auto h) {
    std::uint16_t u;
    std::memcpy(&u, static_cast<const void*>(&h), sizeof u);
    return u;
  };
  int wrong = 0;
  for (std::uint32_t u = 0; u < 0x10000; ++u) {  // every 16-bit pattern, NaNs with payloads too
    const auto h = static_cast<std::uint16_t>(u);
    tl::float16 e16;
    tl::bfloat16 eb16;
    std::memcpy(static_cast<void*>(&e16), &h, 2);
    std::memcpy(static_cast<void*>(&eb16), &h, 2);
    wrong += std::bit_cast<std::uint32_t>(tl::half_bits::to_float(h)) !=
             std::bit_cast<std::uint32_t>(static_cast<float>(e16));
    wrong += std::bit_cast<std::uint32_t>(tl::half_bits::bfloat16_to_float(h)) !=
             std::bit_cast<std::uint32_t>(static_cast<float>(eb16));
  }
  CHECK(wrong == 0);
  // Floats: every exponent with mantissas near the rounding points of both types (ties, one
  // below, one above), both signs, and a sweep of patterns through the whole range.
  std::vector<std::uint32_t> patterns;
  for (std::uint32_t exponent = 0; exponent < 256; ++exponent)
    for (std::uint32_t low : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u,
                              0x8001u, 0x18000u, 0x7fffffu, 0x7fe000u, 0x7ff000u, 0x400000u})
      for (std::uint32_t sign : {0u, 0x80000000u}) patterns.push_back(sign | exponent << 23 | low);
  for (std::uint64_t u = 0; u < 0x100000000ull; u += 65521) patterns.push_back(static_cast<std::uint32_t>(u));
  for (std::uint32_t p : patterns) {
    const float f = std::bit_cast<float>(p);
    INFO("float bits 0x" << std::hex << p);
    const bool ok16 = tl::half_bits::from_float(f) == bits16(tl::float16(f));
    const bool okb16 = tl::half_bits::bfloat16_from_float(f) == bits16(tl::bfloat16(f));
    if (!ok16 || !okb16) {
      CHECK(ok16);
      CHECK(okb16);
      ++wrong;
      if (wrong > 10) break;
    }
  }
  CHECK(wrong == 0);
  CHECK(patterns.size() > 65000);
}

TEST_CASE("Casting a float16 NaN or infinity to int32 is an index-overflow diagnostic, as for "
          "float, and finite halves cast",
          "[tl][half]") {
  using tl::float16;
  struct cast_case {
    float first, second;
    std::vector<int> want;  // empty: an index-overflow diagnostic
  };
  for (const auto& c : {cast_case{1.5f, std::numeric_limits<float>::quiet_NaN(), {}},
                        cast_case{1.5f, INFINITY, {}}, cast_case{-2.75f, 65504.0f, {-2, 65504}}}) {
    INFO("halves " << c.first << ", " << c.second);
    std::vector<float16> h = {float16(c.first), float16(c.second)};
    std::vector<int> out(2, 0);
    tl::sim::buffer bh("h", {2}, "float16", 2, h.data(), true);
    tl::sim::buffer bo("z", {2}, "int32", 4, out.data(), false);
    const auto r = run_one({&bh, &bo}, [&] {
      auto i = tl::arange<2>();
      tl::store(tl::ptr<int>{&bo} + i, tl::cast<int>(tl::load(tl::ptr<const float16>{&bh} + i)));
    });
    if (c.want.empty()) {
      REQUIRE(r.error.has_value());
      CHECK(r.error->kind == std::string("index-overflow"));
    } else {
      INFO(error_of(r));
      REQUIRE_FALSE(r.error.has_value());
      CHECK(out == c.want);
    }
  }
}
