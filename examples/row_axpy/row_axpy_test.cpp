// RowAxpy in the simulator, from Catch2: the kernel against a plain C++ loop in every program
// order, and two planted bugs, each caught with the diagnostic that names it.
// main() comes from Catch2::Catch2WithMain, in Catch2 2.13 (Debian bookworm's) and Catch2 3
// (Homebrew's), whose headers differ.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <vector>

#include "planted_bug.hpp"  // RowAxpyMaskingColumnsOnly, the twin with its mask slip
#include "row_axpy.hpp"
#include "simulator/simulate.hpp"

namespace {

// Made-up data that is not uniform, so that a misplaced element shows.
std::vector<float> values(int count, float step) {
  std::vector<float> v(count);
  for (int i = 0; i < count; ++i) v[i] = static_cast<float>((i * 37) % 101) * step - 1.0f;
  return v;
}

struct problem {
  int rows = 37, cols = 70;  // neither a multiple of the block sizes below
  std::vector<float> alpha = values(rows, 0.03f);
  std::vector<float> x = values(rows * cols, 0.01f);
  std::vector<float> y = values(rows * cols, -0.02f);
  std::vector<float> z = std::vector<float>(rows * cols);

  // The same arithmetic in plain C++: a product, then a sum, each rounded to float (the
  // simulator contracts nothing into a fused multiply-add, and neither does this file).
  std::vector<float> expected() const {
    std::vector<float> out(x.size());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        out[r * cols + c] = alpha[r] * x[r * cols + c] + y[r * cols + c];
    return out;
  }
};

}  // namespace

TEST_CASE("RowAxpy computes alpha[r] * x + y in every program order, every check clean") {
  constexpr int BR = 8, BC = 32;
  problem p;
  auto order = GENERATE(tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle);
  tl::sim::launch_options options;
  options.order = order;
  options.seed = 2024;

  const tl::simulation run = tl::simulate<RowAxpy<BR, BC>>(
      tl::grid{tl::cdiv(p.rows, BR)}, options, tl::sim::input("alpha", p.alpha),
      tl::sim::input("x", p.x, {p.rows, p.cols}), tl::sim::input("y", p.y, {p.rows, p.cols}),
      tl::sim::output("z", p.z, {p.rows, p.cols}), p.rows, p.cols);

  INFO(run.report());
  REQUIRE(run.clean());
  CHECK(run.programs_run == tl::cdiv(p.rows, BR));
  CHECK(p.z == p.expected());
  // Each element of x is loaded once, and each of z stored once.
  CHECK(run.tensor("x").counters.loads == p.rows * p.cols);
  CHECK(run.tensor("z").counters.stores == p.rows * p.cols);
}

TEST_CASE("A RowAxpy that masks the columns only is caught loading outside x") {
  constexpr int BR = 8, BC = 32;
  problem p;
  const tl::simulation run = tl::simulate<RowAxpyMaskingColumnsOnly<BR, BC>>(
      tl::grid{tl::cdiv(p.rows, BR)}, tl::sim::input("alpha", p.alpha),
      tl::sim::input("x", p.x, {p.rows, p.cols}), tl::sim::input("y", p.y, {p.rows, p.cols}),
      tl::sim::output("z", p.z, {p.rows, p.cols}), p.rows, p.cols);

  INFO(run.report());
  REQUIRE_FALSE(run.clean());
  CHECK(run.kind() == tl::sim::kind::out_of_bounds);
  CHECK(run.error->buffer == "x");
  // The last program, rows 32 to 39 of 37: its rows 37, 38 and 39 are outside.
  CHECK(run.error->program == std::array<int, 3>{4, 0, 0});
  CHECK(run.error->source.find("planted_bug.hpp") != std::string::npos);
  CHECK(run.report().find("outside the buffer") != std::string::npos);
}

TEST_CASE("A RowAxpy launched on a grid one program short leaves z's last rows unwritten") {
  constexpr int BR = 8, BC = 32;
  problem p;
  const tl::simulation run = tl::simulate<RowAxpy<BR, BC>>(
      tl::grid{p.rows / BR}, tl::sim::input("alpha", p.alpha),
      tl::sim::input("x", p.x, {p.rows, p.cols}), tl::sim::input("y", p.y, {p.rows, p.cols}),
      tl::sim::output("z", p.z, {p.rows, p.cols}), p.rows, p.cols);

  INFO(run.report());
  CHECK(run.kind() == tl::sim::kind::unwritten_output);
  CHECK(run.tensor("z").unwritten == (p.rows % BR) * p.cols);
}
