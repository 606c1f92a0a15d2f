// The simulator's access trace (simulator/trace.hpp): off by default; when a launch asks for it,
// every lane of every load and store is recorded with its program, even the lanes of an access
// that fails, and masked-off lanes are told apart from active ones.
#include <catch2/catch.hpp>

#include <vector>

#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

using tl::sim::access_trace;

tl::sim::buffer make_buffer(const char* name, std::vector<float>& data, bool input) {
  return tl::sim::buffer(name, {static_cast<long long>(data.size())}, "float32", sizeof(float),
                         data.data(), input);
}

// z[i] = x[i] for i < n, in blocks of 4: the last block masks its tail (or not, with `masked`).
template <bool masked>
tl::sim::launch_result copy(int n, std::vector<float>& x, std::vector<float>& z,
                            access_trace* trace) {
  auto bx = make_buffer("x", x, true);
  auto bz = make_buffer("z", z, false);
  tl::sim::launch_options options;
  options.trace = trace;
  const int programs = (n + 3) / 4;
  return tl::sim::run_grid({programs, 1, 1}, options, {&bx, &bz}, [&] {
    const tl::ptr<const float> px{&bx, 0};
    const tl::ptr<float> pz{&bz, 0};
    auto offsets = tl::program_id(0) * 4 + tl::arange<4>();
    if constexpr (masked) {
      tl::store(pz + offsets, tl::load(px + offsets, offsets < n), offsets < n);
    } else {
      tl::store(pz + offsets, tl::load(px + offsets));
    }
  });
}

std::uint8_t what_at(access_trace& t, int program, int buffer, long long offset) {
  for (const auto& e : t.entries())
    if (e.program == program && e.buffer == buffer && e.offset == offset) return e.what;
  return 0;
}

}  // namespace

TEST_CASE("The access trace records each program's loads, stores and masked-off lanes",
          "[trace]") {
  std::vector<float> x(6, 1.0f), z(6, 0.0f);
  access_trace trace;
  const auto r = copy<true>(6, x, z, &trace);
  REQUIRE_FALSE(r.error);
  // Program 0 loads and stores 0..3; program 1 loads and stores 4, 5 and masks off 6, 7.
  for (int i = 0; i < 4; ++i) {
    CHECK(what_at(trace, 0, 0, i) == tl::sim::traced_load);
    CHECK(what_at(trace, 0, 1, i) == tl::sim::traced_store);
    CHECK(what_at(trace, 1, 0, i) == 0);
  }
  CHECK(what_at(trace, 1, 0, 5) == tl::sim::traced_load);
  CHECK(what_at(trace, 1, 1, 5) == tl::sim::traced_store);
  CHECK(what_at(trace, 1, 0, 6) == tl::sim::traced_masked_load);
  CHECK(what_at(trace, 1, 1, 7) == tl::sim::traced_masked_store);
  CHECK(trace.entries().size() == 4 * 4);  // 2 programs x 2 buffers x 4 lanes, each once
  CHECK_FALSE(trace.truncated());
}

TEST_CASE("The access trace keeps the lanes of an access that goes out of bounds", "[trace]") {
  std::vector<float> x(6, 1.0f), z(6, 0.0f);
  access_trace trace;
  const auto r = copy<false>(6, x, z, &trace);
  REQUIRE(r.error);
  CHECK(r.error->kind == std::string("out-of-bounds"));
  CHECK(what_at(trace, 1, 0, 5) == tl::sim::traced_load);
  CHECK(what_at(trace, 1, 0, 6) == tl::sim::traced_outside_load);
  CHECK(what_at(trace, 1, 0, 7) == tl::sim::traced_outside_load);
  CHECK(what_at(trace, 1, 1, 4) == 0);  // the store never ran
}

TEST_CASE("Without a trace nothing is recorded, and a new launch starts a new trace", "[trace]") {
  std::vector<float> x(6, 1.0f), z(6, 0.0f);
  access_trace trace;
  REQUIRE_FALSE(copy<true>(6, x, z, nullptr).error);
  CHECK(trace.entries().empty());
  REQUIRE_FALSE(copy<true>(6, x, z, &trace).error);
  const auto first = trace.entries().size();
  std::vector<float> x2(2, 1.0f), z2(2, 0.0f);
  REQUIRE_FALSE(copy<true>(2, x2, z2, &trace).error);
  CHECK(first == 16);
  CHECK(trace.entries().size() == 8);  // one program, two buffers, four lanes
}
