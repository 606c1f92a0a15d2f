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

// ---- What the GPU's copies ahead read (simulator/prefetch.hpp) ----

namespace {

// Sums the blocks x[k : k + 8] that lie wholly inside x's n elements, the `if` choosing them; the
// twin masks the load itself. On the GPU a three-stage range copies iteration k + 16's block at k,
// the `if` notwithstanding.
int whole_blocks_load_line = 0;
template <bool MaskedToo, int Stages>
tl::sim::launch_result whole_blocks(int n, float& sum) {
  static std::vector<float> x;
  x.assign(n, 1.0f);
  std::vector<float> z(8, 0.0f);
  auto bx = input("x", x);
  auto bz = output("z", z);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    tl::ptr<const float> px{&bx};
    tl::tile<float, 8> acc = 0.0f;
    for (auto k : tl::range(0, 64, 8, tl::num_stages<Stages>)) {
      auto offsets = k + tl::arange<8>();
      if (k + 8 <= n) {
        if constexpr (MaskedToo)
          acc += tl::load(px + offsets, offsets < n, 0.0f);
        else
          acc += tl::load(px + offsets), whole_blocks_load_line = __LINE__;
      }
    }
    tl::store(tl::ptr<float>{&bz} + tl::arange<8>(), acc);
  });
  sum = 0.0f;
  for (float v : z) sum += v;
  return r;
}

// y[k + 8 : k + 16] = y[k : k + 8] + 1 for k = 0, 8, ...: each iteration loads what the one
// before stored. The twin loads it in a one-stage range.
int running_blocks_load_line = 0;
template <int Stages>
tl::sim::launch_result running_blocks(std::vector<float>& y) {
  y.assign(64, -1.0f);
  auto by = output("y", y);
  return tl::sim::run_grid({1, 1, 1}, {}, {&by}, [&] {
    tl::ptr<float> py{&by};
    tl::store(py + tl::arange<8>(), tl::tile<float, 8>(0.0f));
    for (auto k : tl::range(0, 56, 8, tl::num_stages<Stages>)) {
      auto offsets = k + tl::arange<8>();
      auto block = tl::load(py + offsets);
      running_blocks_load_line = __LINE__ - 1;
      tl::store(py + 8 + offsets, block + 1.0f);
    }
  });
}

}  // namespace

TEST_CASE("a load in an `if` of a pipelined range that the GPU copies out of bounds ahead is "
          "reported at its line, and masked, it passes",
          "[tl][range][prefetch]") {
  float sum = 0.0f;
  const auto wrong = whole_blocks<false, 3>(60, sum);
  REQUIRE(wrong.error.has_value());
  INFO(wrong.error->message);
  CHECK(wrong.error->kind == "out-of-bounds");
  CHECK(wrong.error->source == "tests/tl_range.cpp:" + std::to_string(whole_blocks_load_line));
  CHECK_THAT(wrong.error->message, Catch::Contains("On the GPU this load is copied 2 iterations "
                                                   "ahead (tl::range's num_stages<3>)"));
  CHECK_THAT(wrong.error->message, Catch::Contains("at index 40 it copies the tile of index 56"));
  CHECK_THAT(wrong.error->message, Catch::Contains("4 lanes, the first:\n    lane 4 at [4]: offset 60"));
  CHECK_THAT(wrong.error->message, Catch::Contains("Mask the load"));
  CHECK(wrong.error->lanes.size() == 4);

  // Its twins: the load masked (three stages or two), one stage, and an n the blocks fit.
  for (auto run : {whole_blocks<true, 3>, whole_blocks<true, 2>, whole_blocks<false, 1>}) {
    const auto r = run(60, sum);
    INFO((r.error ? r.error->message : std::string()));
    CHECK_FALSE(r.error.has_value());
    CHECK(sum == 56.0f);
  }
  const auto fits = whole_blocks<false, 3>(64, sum);
  CHECK_FALSE(fits.error.has_value());
  CHECK(sum == 64.0f);
}

TEST_CASE("a pipelined load of what the previous iteration stored is reported (the GPU copied "
          "it before the store), and in a one-stage range it passes",
          "[tl][range][prefetch]") {
  std::vector<float> y;
  const auto wrong = running_blocks<2>(y);
  REQUIRE(wrong.error.has_value());
  INFO(wrong.error->message);
  CHECK(wrong.error->kind == "race-read-write");
  CHECK(wrong.error->source == "tests/tl_range.cpp:" + std::to_string(running_blocks_load_line));
  CHECK_THAT(wrong.error->message, Catch::Contains("On the GPU this load is copied 1 iteration "
                                                   "ahead (tl::range's num_stages<2>): its tile for "
                                                   "index 8 was read from memory at index 0"));
  CHECK_THAT(wrong.error->message, Catch::Contains("8 lanes, the first:\n    lane 0 at [0]: offset 8"));
  CHECK_THAT(wrong.error->message, Catch::Contains("The GPU gives the values from before the store"));

  const auto plain = running_blocks<1>(y);
  INFO((plain.error ? plain.error->message : std::string()));
  REQUIRE_FALSE(plain.error.has_value());
  for (int i = 0; i < 64; ++i) CHECK(y[i] == static_cast<float>(i / 8));
}

namespace {

// Sums the [64, 64] float16 blocks of x (rows of 64) that lie wholly inside its n rows, the `if`
// choosing them; the twin masks the load itself. Such a tile is too large for a per-thread stage
// buffer with 4 warps (two stages of 8 KiB and the words pass 16 KiB), but it can be dot's operand:
// the GPU copies it by the whole block into dot's shared memory, one iteration ahead
// (cuda/operand_stages.cuh, within max_operand_stage_bytes), the `if` notwithstanding.
int half_blocks_load_line = 0;
template <bool MaskedToo>
tl::sim::launch_result half_blocks(int n) {
  static std::vector<tl::float16> x;
  x.assign(static_cast<std::size_t>(n) * 64, tl::float16(1.0f));
  std::vector<float> z(64, 0.0f);
  tl::sim::buffer bx("x", {n * 64LL}, "float16", 2, x.data(), true);
  auto bz = output("z", z);
  return tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    tl::ptr<const tl::float16> px{&bx};
    tl::tile<float, 64> acc = 0.0f;
    for (auto k : tl::range(0, 256, 64, tl::num_stages<2>)) {
      auto rows = k + tl::arange<64>();
      auto at = px + rows.col() * 64 + tl::arange<64>().row();
      if (k + 64 <= n) {
        if constexpr (MaskedToo)
          acc += tl::sum<1>(tl::cast<float>(tl::load(at, (rows < n).col(), 0.0f)));
        else
          acc += tl::sum<1>(tl::cast<float>(tl::load(at))), half_blocks_load_line = __LINE__;
      }
    }
    tl::store(tl::ptr<float>{&bz} + tl::arange<64>(), acc);
  });
}

}  // namespace

TEST_CASE("a float16 tile that can be dot's operand is replayed with the operand copies' stages: "
          "copied out of bounds ahead, it is reported, and masked, it passes",
          "[tl][range][prefetch]") {
  const auto wrong = half_blocks<false>(160);
  REQUIRE(wrong.error.has_value());
  INFO(wrong.error->message);
  CHECK(wrong.error->kind == "out-of-bounds");
  CHECK(wrong.error->source == "tests/tl_range.cpp:" + std::to_string(half_blocks_load_line));
  CHECK_THAT(wrong.error->message, Catch::Contains("On the GPU this load is copied 1 iteration "
                                                   "ahead (tl::range's num_stages<2>)"));
  CHECK_THAT(wrong.error->message, Catch::Contains("at index 64 it copies the tile of index 128"));
  const auto masked = half_blocks<true>(160);
  INFO((masked.error ? masked.error->message : std::string()));
  CHECK_FALSE(masked.error.has_value());
}

namespace {

// The out-of-bounds load of whole_blocks<false, 3>, in the forms the GPU loads plainly (so
// copies nothing ahead): offsets that hold loaded data, a second load of one expression type
// in the iteration, a load the first iteration does not reach.
enum class plain_on_the_gpu { loaded_offsets, second_of_its_type, not_in_the_first_iteration };

tl::sim::launch_result unmasked_in_an_if(plain_on_the_gpu form) {
  static std::vector<float> x(60, 1.0f), y(64, 1.0f);
  static std::vector<int> zeros(8, 0);
  std::vector<float> z(8, 0.0f);
  auto bx = input("x", x);
  auto by = input("y", y);
  tl::sim::buffer bzeros("zeros", {8}, "int32", sizeof(int), zeros.data(), true);
  auto bz = output("z", z);
  return tl::sim::run_grid({1, 1, 1}, {}, {&bx, &by, &bzeros, &bz}, [&] {
    tl::ptr<const float> px{&bx}, py{&by};
    const int n = 60;
    tl::tile<float, 8> acc = 0.0f;
    for (auto k : tl::range(0, 64, 8, tl::num_stages<3>)) {
      auto offsets = k + tl::arange<8>();
      switch (form) {
        case plain_on_the_gpu::loaded_offsets:
          if (k + 8 <= n) acc += tl::load(px + (offsets + tl::load(tl::ptr<const int>{&bzeros} + tl::arange<8>())));
          break;
        case plain_on_the_gpu::second_of_its_type:
          acc += tl::load(py + offsets);
          if (k + 8 <= n) acc += tl::load(px + offsets);
          break;
        case plain_on_the_gpu::not_in_the_first_iteration:
          if (k > 0 && k + 8 <= n) acc += tl::load(px + offsets);
          break;
      }
    }
    tl::store(tl::ptr<float>{&bz} + tl::arange<8>(), acc);
  });
}

}  // namespace

TEST_CASE("loads of a pipelined range that the GPU loads plainly are not reported for copies "
          "it does not make",
          "[tl][range][prefetch]") {
  for (auto form : {plain_on_the_gpu::loaded_offsets, plain_on_the_gpu::second_of_its_type,
                    plain_on_the_gpu::not_in_the_first_iteration}) {
    const auto r = unmasked_in_an_if(form);
    INFO("form " << static_cast<int>(form) << ": " << (r.error ? r.error->message : std::string()));
    CHECK_FALSE(r.error.has_value());
  }
}
