// tl::simulate, the launch API for users' own kernels (simulator/simulate.hpp): what it hands a
// kernel, what it returns, and what it refuses before any program runs. The example project
// (examples/row_axpy, through an installed package: tests/library/round_trip.cmake) covers the
// planted out-of-bounds kernel and its correct twin; these cover the rest of the API.

#include <catch2/catch.hpp>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulator/simulate.hpp"

namespace {

// z = x * scale, one block per program: a scalar of each kind and a 1-D grid.
template <int B>
struct Scale {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, float scale, int n) const {
    auto offsets = tl::program_id(0) * B + tl::arange<B>();
    tl::store(z + offsets, tl::load(x + offsets, offsets < n) * scale, offsets < n);
  }
};

// y += 1 in place, over a 2-D grid of [B0, B1] blocks of a rows x cols matrix.
template <int B0, int B1>
struct AddOneInPlace {
  static constexpr int num_warps = 2;
  TL_KERNEL void operator()(tl::ptr<tl::float16> y, int rows, int cols) const {
    auto r = tl::program_id(0) * B0 + tl::arange<B0>();
    auto c = tl::program_id(1) * B1 + tl::arange<B1>();
    auto inside = (r < rows).col() & (c < cols).row();
    auto p = y + r.col() * cols + c.row();
    tl::store(p, tl::cast<tl::float16>(tl::cast<float>(tl::load(p, inside)) + 1.0f), inside);
  }
};

// Every program writes the same B elements: a race between programs.
template <int B>
struct EveryProgramWritesTheStart {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<float> z) const {
    tl::store(z + tl::arange<B>(), tl::full<B>(1.0f));
  }
};

}  // namespace

TEST_CASE("tl::simulate passes tensors and scalars to the kernel in order", "[simulate]") {
  std::vector<float> x{1, 2, 3, 4, 5}, z(5);
  const tl::simulation run = tl::simulate<Scale<4>>(
      tl::grid{2}, tl::sim::input("x", x), tl::sim::output("z", z), 0.5f, 5);
  INFO(run.report());
  REQUIRE(run.clean());
  CHECK(run.kind() == "");
  CHECK(run.report() == "clean");
  CHECK(run.programs_run == 2);
  CHECK(z == std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f});
  REQUIRE(run.tensors.size() == 2);
  CHECK(run.tensor("x").counters.loads == 5);
  CHECK(run.tensor("x").counters.masked_loads == 3);
  CHECK(run.tensor("z").counters.stores == 5);
  CHECK(run.tensor("z").unwritten == 0);
  CHECK_THROWS_AS(run.tensor("y"), std::out_of_range);
}

TEST_CASE("tl::simulate updates an inout tensor in place on a 2-D grid", "[simulate]") {
  std::vector<tl::float16> y(6 * 5, tl::float16(2.0f));
  const tl::simulation run = tl::simulate<AddOneInPlace<4, 4>>(
      tl::grid{2, 2}, tl::sim::inout("y", y, {6, 5}), 6, 5);
  INFO(run.report());
  REQUIRE(run.clean());
  CHECK(run.programs_run == 4);
  for (const tl::float16 v : y) CHECK(static_cast<float>(v) == 3.0f);
}

TEST_CASE("tl::simulate reports an output the kernel reads before writing it", "[simulate]") {
  // The same kernel, handed its tensor as an output: every element it loads is unwritten.
  std::vector<tl::float16> y(4 * 4);
  const tl::simulation run = tl::simulate<AddOneInPlace<4, 4>>(
      tl::grid{1, 1}, tl::sim::output("y", y, {4, 4}), 4, 4);
  CHECK(run.kind() == tl::sim::kind::uninitialized_read);
  REQUIRE(run.error.has_value());
  CHECK(run.error->buffer == "y");
}

TEST_CASE("tl::simulate runs the programs in the order its options ask for", "[simulate]") {
  std::vector<float> z(8);
  tl::sim::launch_options reverse;
  reverse.order = tl::sim::order::reverse;
  const tl::simulation forward_run =
      tl::simulate<EveryProgramWritesTheStart<8>>(tl::grid{3}, tl::sim::output("z", z));
  const tl::simulation reverse_run =
      tl::simulate<EveryProgramWritesTheStart<8>>(tl::grid{3}, reverse, tl::sim::output("z", z));
  CHECK(forward_run.kind() == tl::sim::kind::race_write_write);
  CHECK(reverse_run.kind() == tl::sim::kind::race_write_write);
  REQUIRE(forward_run.error.has_value());
  REQUIRE(reverse_run.error.has_value());
  // The second program to run is the one caught: program 1 forward, program 1 in reverse too,
  // after program 2.
  CHECK(forward_run.programs_run == 2);
  CHECK(reverse_run.programs_run == 2);
  CHECK(reverse_run.error->program == std::array<int, 3>{1, 0, 0});
  CHECK_THAT(reverse_run.report(), Catch::Contains("program (1, 0, 0)"));
}

TEST_CASE("tl::simulate refuses arguments that cannot be what the kernel takes", "[simulate]") {
  std::vector<float> x(8), z(8);
  SECTION("a shape that does not hold the tensor's elements") {
    CHECK_THROWS_WITH(tl::sim::input("x", x, {3, 3}),
                      Catch::Contains("x has 8 elements, but its shape holds 9"));
  }
  SECTION("a size that does not fit the kernel's int parameter") {
    const long long too_large = 1LL << 31;
    CHECK_THROWS_WITH(tl::simulate<Scale<8>>(tl::grid{1}, tl::sim::input("x", x),
                                             tl::sim::output("z", z), 1.0f, too_large),
                      Catch::Contains("argument 3 is 2147483648"));
  }
  SECTION("an output where the kernel takes a pointer to const") {
    CHECK_THROWS_WITH(tl::simulate<Scale<8>>(tl::grid{1}, tl::sim::output("x", x),
                                             tl::sim::output("z", z), 1.0f, 8),
                      Catch::Contains("pass it as tl::sim::input"));
  }
  SECTION("a grid with an axis of no programs") {
    CHECK_THROWS_AS(tl::simulate<Scale<8>>(tl::grid{0}, tl::sim::input("x", x),
                                           tl::sim::output("z", z), 1.0f, 8),
                    std::invalid_argument);
  }
}
