// tl::print in the simulator: each program's line names the program, the kernel line, the name,
// the dtype and shape, and the values; poison lanes print as `?`, lanes the print's mask switches
// off as `-`; a launch that does not collect prints (every check) prints nothing.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tile/tl.hpp"

namespace {

tl::sim::buffer make_buffer(const char* name, std::vector<float>& data, bool input,
                            std::vector<long long> shape) {
  return tl::sim::buffer(name, shape, "float32", sizeof(float), data.data(), input);
}

// Two programs, each loading 4 elements of x[6] (the last two lanes of program 1 masked off,
// without `other`: poison) and printing them, their offsets, a 2-D tile and a scalar.
std::string printed(std::string* sink) {
  std::vector<float> x = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
  auto bx = make_buffer("x", x, true, {6});
  tl::sim::launch_options options;
  options.print_output = sink;
  const auto r = tl::sim::run_grid({2, 1, 1}, options, {&bx}, [&] {
    const tl::ptr<const float> px{&bx, 0};
    auto offsets = tl::program_id(0) * 4 + tl::arange<4>();
    auto mask = offsets < 6;
    auto v = tl::load(px + offsets, mask);
    tl::print("offsets", offsets);
    tl::print("v", v);
    tl::print("v masked", v, mask);
    tl::print("grid", tl::arange<2>().col() * 10 + tl::arange<4>().row());
    tl::print("n", 6);
  });
  REQUIRE_FALSE(r.error);
  return sink ? *sink : std::string();
}

}  // namespace

TEST_CASE("tl::print shows each program's tiles, poison and masked-off lanes", "[print]") {
  std::string out;
  printed(&out);
  const std::string file = "tl_print.cpp:";
  CHECK_THAT(out, Catch::Contains("[program (0, 0, 0)] "));
  CHECK_THAT(out, Catch::Contains(" offsets: int32 [4] = [0, 1, 2, 3]\n"));
  CHECK_THAT(out, Catch::Contains("[program (1, 0, 0)] "));
  CHECK_THAT(out, Catch::Contains(" offsets: int32 [4] = [4, 5, 6, 7]\n"));
  CHECK_THAT(out, Catch::Contains(" v: float32 [4] = [0.5, 1.5, 2.5, 3.5]\n"));
  CHECK_THAT(out, Catch::Contains(" v: float32 [4] = [4.5, 5.5, ?, ?]\n"));
  CHECK_THAT(out, Catch::Contains(" v masked: float32 [4] = [4.5, 5.5, -, -]\n"));
  CHECK_THAT(out, Catch::Contains(" grid: int32 [2, 4] =\n  [0, 1, 2, 3]\n  [10, 11, 12, 13]\n"));
  CHECK_THAT(out, Catch::Contains(" n: int32 = 6\n"));
  CHECK_THAT(out, Catch::Contains(file));  // the kernel's line
  // Program 0's lines come before program 1's: the programs ran forward.
  CHECK(out.find("[program (0, 0, 0)]") < out.find("[program (1, 0, 0)]"));
}

TEST_CASE("tl::print prints nothing when the launch does not collect it", "[print]") {
  CHECK(printed(nullptr).empty());
}
