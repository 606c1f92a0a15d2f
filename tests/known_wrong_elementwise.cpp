// Known-wrong kernels for the puzzles without loops (constant-add, constant-add-block, outer-add,
// outer-add-block, outer-mul-relu, outer-mul-relu-backward): each fails with the diagnostic kind
// a learner would meet, and the puzzle's solution passes through the same path.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "check_as_puzzle.hpp"
#include "corpus.hpp"
#include "checker/specs/constant_add.hpp"
#include "checker/specs/constant_add_block.hpp"
#include "checker/specs/outer_add.hpp"
#include "checker/specs/outer_add_block.hpp"
#include "checker/specs/outer_mul_relu.hpp"
#include "checker/specs/outer_mul_relu_backward.hpp"

using namespace as_puzzle;

namespace wrong {

// ---- constant-add: z = x + 10, one program, B0 == N0 ----

// Adds 10 to the address instead of the value: x + offsets + 10 points 10 elements further.
template <int B0>
struct ConstantAddToTheAddress {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::arange<B0>();
    tl::store(z + offsets, tl::load(x + offsets + 10));
  }
};

// Written for the classic set's 32 lanes: right for B0 = 32 only.
template <int B0>
struct ConstantAddFor32Lanes {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::arange<32>();
    tl::store(z + offsets, tl::load(x + offsets) + 10.0f);
  }
};

// Copies x and forgets the constant.
template <int B0>
struct ConstantAddForgettingTen {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::arange<B0>();
    tl::store(z + offsets, tl::load(x + offsets));
  }
};

// ---- constant-add-block: z = x + 10, B0 per program ----

template <int B0>
struct ConstantAddBlockWithoutMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::store(z + offsets, tl::load(x + offsets) + 10.0f);
  }
};

// Masks by the lane's place in its block, not by the element it stands for: only the first
// program's mask is right.
template <int B0>
struct ConstantAddBlockMaskingLanes {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto lanes = tl::arange<B0>();
    auto offsets = tl::program_id(0) * B0 + lanes;
    auto mask = lanes < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + 10.0f, mask);
  }
};

// Forgets tl::program_id: every program works on the first block.
template <int B0>
struct ConstantAddBlockWithoutProgramId {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::arange<B0>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + 10.0f, mask);
  }
};

// ---- outer-add: z[j, i] = x[i] + y[j], one program ----

// Broadcasts along the wrong axes: z[i, j] = x[i] + y[j], the transpose, stored in z's space.
template <int B0, int B1>
struct OuterAddTransposed {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<B0>();
    auto j = tl::arange<B1>();
    auto x_col = tl::load(x + i).col();
    auto y_row = tl::load(y + j).row();
    tl::store(z + i.col() * N1 + j.row(), x_col + y_row);
  }
};

// Steps from row to row by N1, the length of a column: right only where z is square; elsewhere
// rows overlap, and two lanes of the store write one element.
template <int B0, int B1>
struct OuterAddWrongRowStride {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<B0>();
    auto j = tl::arange<B1>();
    tl::store(z + j.col() * N1 + i.row(), tl::load(y + j).col() + tl::load(x + i).row());
  }
};

// Written for the classic set's 32 x 32.
template <int B0, int B1>
struct OuterAddFor32By32 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<32>();
    auto j = tl::arange<32>();
    tl::store(z + j.col() * 32 + i.row(), tl::load(y + j).col() + tl::load(x + i).row());
  }
};

// ---- outer-add-block: z[j, i] = x[i] + y[j], a [B1, B0] tile per program ----

// Masks the columns only: the rows past N1 load y and store z out of bounds.
template <int B0, int B1>
struct OuterAddBlockWithoutRowMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto y_col = tl::load(y + j);
    auto x_row = tl::load(x + i, i < N0);
    tl::store(z + j.col() * N0 + i.row(), y_col.col() + x_row.row(), (i < N0).row());
  }
};

// Loads x and y with the tile's 2-D mask: the loads broadcast to [B1, B0], so each program
// reads each element of x once per row of its tile. The result is right.
template <int B0, int B1>
struct OuterAddBlockLoadingTiles {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto mask = (j < N1).col() & (i < N0).row();
    auto x_tile = tl::load(x + i.row(), mask);
    auto y_tile = tl::load(y + j.col(), mask);
    tl::store(z + j.col() * N0 + i.row(), y_tile + x_tile, mask);
  }
};

// Takes the rows from grid axis 0 and the columns from axis 1: the grid does not cover z.
template <int B0, int B1>
struct OuterAddBlockSwappedGridAxes {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(1) * B0 + tl::arange<B0>();
    auto j = tl::program_id(0) * B1 + tl::arange<B1>();
    auto x_row = tl::load(x + i, i < N0);
    auto y_col = tl::load(y + j, j < N1);
    tl::store(z + j.col() * N0 + i.row(), y_col.col() + x_row.row(),
              (j < N1).col() & (i < N0).row());
  }
};

// Broadcasts along the wrong axes and writes the transpose, z[i, j], into z.
template <int B0, int B1>
struct OuterAddBlockTransposed {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto x_col = tl::load(x + i, i < N0).col();
    auto y_row = tl::load(y + j, j < N1).row();
    tl::store(z + i.col() * N1 + j.row(), x_col + y_row, (i < N0).col() & (j < N1).row());
  }
};

// ---- outer-mul-relu: z[j, i] = relu(x[i] * y[j]) ----

template <int B0, int B1, class Combine>
void outer_mul(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0, int N1,
               Combine combine) {
  auto i = tl::program_id(0) * B0 + tl::arange<B0>();
  auto j = tl::program_id(1) * B1 + tl::arange<B1>();
  auto x_row = tl::load(x + i, i < N0);
  auto y_col = tl::load(y + j, j < N1);
  tl::store(z + j.col() * N0 + i.row(), combine(x_row, y_col), (j < N1).col() & (i < N0).row());
}

// Relu on each input instead of on the product: a negative times a negative is lost.
template <int B0, int B1>
struct OuterMulReluOnInputs {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    outer_mul<B0, B1>(x, y, z, N0, N1, [](const auto& x_row, const auto& y_col) {
      return tl::maximum(y_col, 0.0f).col() * tl::maximum(x_row, 0.0f).row();
    });
  }
};

// No relu at all.
template <int B0, int B1>
struct OuterMulWithoutRelu {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    outer_mul<B0, B1>(x, y, z, N0, N1, [](const auto& x_row, const auto& y_col) {
      return y_col.col() * x_row.row();
    });
  }
};

// Masks the store but not the load of x.
template <int B0, int B1>
struct OuterMulReluWithoutLoadMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto x_row = tl::load(x + i);
    auto y_col = tl::load(y + j, j < N1);
    tl::store(z + j.col() * N0 + i.row(), tl::maximum(y_col.col() * x_row.row(), 0.0f),
              (j < N1).col() & (i < N0).row());
  }
};

// ---- outer-mul-relu-backward: dx[j, i] = (x[j, i] * y[j] > 0) * y[j] * dz[j, i] ----

template <int B0, int B1, class Gradient>
void backward(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<const float> dz,
              tl::ptr<float> dx, int N0, int N1, Gradient gradient) {
  auto i = tl::program_id(0) * B0 + tl::arange<B0>();
  auto j = tl::program_id(1) * B1 + tl::arange<B1>();
  auto offsets = j.col() * N0 + i.row();
  auto mask = (j < N1).col() & (i < N0).row();
  auto x_tile = tl::load(x + offsets, mask);
  auto y_col = tl::load(y + j, j < N1).col();
  auto dz_tile = tl::load(dz + offsets, mask);
  tl::store(dx + offsets, gradient(x_tile, y_col, dz_tile), mask);
}

// Opens the relu's gate where x > 0, forgetting that y's sign flips the product's.
template <int B0, int B1>
struct BackwardGatedOnX {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    backward<B0, B1>(x, y, dz, dx, N0, N1, [](const auto& x_, const auto& y_, const auto& dz_) {
      return tl::where(x_ > 0.0f, y_ * dz_, 0.0f);
    });
  }
};

// Opens the gate at x * y == 0 too: relu'(0) is 0 here, as in PyTorch.
template <int B0, int B1>
struct BackwardGateOpenAtZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    backward<B0, B1>(x, y, dz, dx, N0, N1, [](const auto& x_, const auto& y_, const auto& dz_) {
      return tl::where(x_ * y_ >= 0.0f, y_ * dz_, 0.0f);
    });
  }
};

// Broadcasts y along the wrong axis: y[i] by column where y[j] by row is meant.
template <int B0, int B1>
struct BackwardYByColumn {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto offsets = j.col() * N0 + i.row();
    auto mask = (j < N1).col() & (i < N0).row();
    auto x_tile = tl::load(x + offsets, mask);
    auto y_row = tl::load(y + i, i < N0).row();
    auto dz_tile = tl::load(dz + offsets, mask);
    tl::store(dx + offsets, tl::where(x_tile * y_row > 0.0f, y_row * dz_tile, 0.0f), mask);
  }
};

}  // namespace wrong

// ---------------------------------------------------------------------------------------------

TEST_CASE("Known-wrong constant-add kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::constant_add;
  SECTION("adding 10 to the address reads past the end of x") {
    const auto report = check_wrong<wrong::ConstantAddToTheAddress, binding>("constant-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    // The first case, N0 = B0 = 32: lanes 22 to 31 read x[32] to x[41].
    CHECK(report.sizes == std::vector<int>{32});
    CHECK_THAT(d.message, Catch::Contains("10 lanes"));
    REQUIRE_FALSE(d.lanes.empty());
    CHECK(d.lanes[0].lane == 22);
    CHECK(d.lanes[0].offset == 32);
  }
  SECTION("a kernel written for 32 lanes leaves the rest of a longer vector unwritten") {
    const auto report = check_wrong<wrong::ConstantAddFor32Lanes, binding, 2>("constant-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK(d.buffer == "z");
    CHECK(report.blocks == std::vector<int>{128});
    CHECK_THAT(d.message, Catch::Contains("96 of 128 elements of z were never written"));
  }
  SECTION("forgetting the constant is a wrong result") {
    const auto report = check_wrong<wrong::ConstantAddForgettingTen, binding>("constant-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK_THAT(d.message, Catch::Contains("32 of 32 elements of z differ"));
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("constant-add").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong constant-add-block kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::constant_add_block;
  SECTION("without a mask the last program reads past the end") {
    const auto report =
        check_wrong<wrong::ConstantAddBlockWithoutMask, binding>("constant-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(report.sizes == std::vector<int>{1});
    CHECK_THAT(d.message, Catch::Contains("31 lanes"));
  }
  SECTION("a mask on the lane number instead of the element lets later programs out") {
    const auto report =
        check_wrong<wrong::ConstantAddBlockMaskingLanes, binding>("constant-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    // N0 = 33, B0 = 32: program 1's lanes 1 to 31 pass `lane < 33` and read x[33] to x[63].
    CHECK(report.sizes == std::vector<int>{33});
    CHECK(d.program == std::array<int, 3>{1, 0, 0});
    CHECK_THAT(d.message, Catch::Contains("31 lanes"));
  }
  SECTION("forgetting tl::program_id makes every program write the first block") {
    const auto report =
        check_wrong<wrong::ConstantAddBlockWithoutProgramId, binding>("constant-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{33});
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("constant-add-block").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong outer-add kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::outer_add;
  SECTION("broadcasting along the wrong axes stores the transpose: a wrong result") {
    const auto report = check_wrong<wrong::OuterAddTransposed, binding>("outer-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{32, 32});
  }
  SECTION("a row stride of N1 passes the square case; in a wide z two lanes of its store write "
          "one element") {
    const auto report = check_wrong<wrong::OuterAddWrongRowStride, binding, 2>("outer-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    CHECK_THAT(d.message, Catch::Contains("two lanes of this store write z[0, 16]"));
    CHECK(report.sizes == std::vector<int>{64, 16});
  }
  SECTION("a kernel written for 32 x 32 reads past the end of a shorter y") {
    const auto report = check_wrong<wrong::OuterAddFor32By32, binding, 2>("outer-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "y");
    CHECK(report.sizes == std::vector<int>{64, 16});
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("outer-add").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong outer-add-block kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::outer_add_block;
  SECTION("without a mask on the rows, y is read past its end") {
    const auto report =
        check_wrong<wrong::OuterAddBlockWithoutRowMask, binding>("outer-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "y");
    CHECK(report.sizes == std::vector<int>{1, 1});
  }
  SECTION("loading x and y with the 2-D mask reads them once per row or column of the tile") {
    const auto report = check_wrong<wrong::OuterAddBlockLoadingTiles, binding>("outer-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    // N0 = 3, N1 = 2: each x element is loaded by both rows of the one program.
    CHECK(report.sizes == std::vector<int>{3, 2});
    CHECK_THAT(d.message, Catch::Contains("an element of x 2 times (at most 1 allowed)"));
  }
  SECTION("rows from grid axis 0 and columns from axis 1 leave part of z unwritten") {
    const auto report =
        check_wrong<wrong::OuterAddBlockSwappedGridAxes, binding>("outer-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{100, 90});
  }
  SECTION("broadcasting along the wrong axes stores the transpose: a wrong result") {
    const auto report = check_wrong<wrong::OuterAddBlockTransposed, binding>("outer-add-block");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(report.sizes == std::vector<int>{3, 2});
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("outer-add-block").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong outer-mul-relu kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::outer_mul_relu;
  SECTION("relu on the inputs instead of the product loses negative times negative") {
    const auto report = check_wrong<wrong::OuterMulReluOnInputs, binding>("outer-mul-relu");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
  }
  SECTION("without the relu, the negative products are wrong") {
    const auto report = check_wrong<wrong::OuterMulWithoutRelu, binding>("outer-mul-relu");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK_THAT(d.message, Catch::Contains("expected 0"));
  }
  SECTION("masking the store but not the load of x reads past its end") {
    const auto report = check_wrong<wrong::OuterMulReluWithoutLoadMask, binding>("outer-mul-relu");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(report.sizes == std::vector<int>{1, 1});
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("outer-mul-relu").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong outer-mul-relu-backward kernels fail with their diagnostic",
          "[known-wrong]") {
  using binding = tp::bindings::outer_mul_relu_backward;
  const char* id = "outer-mul-relu-backward";
  SECTION("a gate on the sign of x alone is wrong where y is negative") {
    const auto report = check_wrong<wrong::BackwardGatedOnX, binding>(id);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "dx");
  }
  SECTION("a gate open at x * y == 0 is wrong where x is exactly 0") {
    const auto report = check_wrong<wrong::BackwardGateOpenAtZero, binding>(id);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "dx");
    CHECK_THAT(d.message, Catch::Contains("expected 0"));
  }
  SECTION("y broadcast by column instead of by row reads past the end of y") {
    const auto report = check_wrong<wrong::BackwardYByColumn, binding>(id);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "y");
    // N0 = 3 columns, N1 = 2 rows: y has 2 elements and the third column asks for y[2].
    CHECK(report.sizes == std::vector<int>{3, 2});
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution(id).status == tp::status::solved);
  }
}

// ---------------------------------------------------------------------------------------------
// In the corpus (tests/corpus.hpp): each fails with its kind on 20 seeds.

TP_CORPUS_GROUP("known-wrong-elementwise");
TP_WRONG(ConstantAddToTheAddress, constant_add, "out-of-bounds", "");
TP_WRONG_FIRST_CONFIGS(ConstantAddFor32Lanes, constant_add, 2, "unwritten-output", "");
TP_WRONG(ConstantAddForgettingTen, constant_add, "wrong-result", "");
TP_WRONG(ConstantAddBlockWithoutMask, constant_add_block, "out-of-bounds", "");
TP_WRONG(ConstantAddBlockMaskingLanes, constant_add_block, "out-of-bounds", "");
TP_WRONG(ConstantAddBlockWithoutProgramId, constant_add_block, "race-write-write", "");
TP_WRONG(OuterAddTransposed, outer_add, "wrong-result", "");
TP_WRONG_FIRST_CONFIGS(OuterAddWrongRowStride, outer_add, 2, "race-write-write",
                       "two lanes of this store write");
TP_WRONG_FIRST_CONFIGS(OuterAddFor32By32, outer_add, 2, "out-of-bounds", "");
TP_WRONG(OuterAddBlockWithoutRowMask, outer_add_block, "out-of-bounds", "");
TP_WRONG(OuterAddBlockLoadingTiles, outer_add_block, "efficiency-budget", "");
TP_WRONG(OuterAddBlockSwappedGridAxes, outer_add_block, "unwritten-output", "");
TP_WRONG(OuterAddBlockTransposed, outer_add_block, "wrong-result", "");
TP_WRONG(OuterMulReluOnInputs, outer_mul_relu, "wrong-result", "");
TP_WRONG(OuterMulWithoutRelu, outer_mul_relu, "wrong-result", "");
TP_WRONG(OuterMulReluWithoutLoadMask, outer_mul_relu, "out-of-bounds", "");
TP_WRONG(BackwardGatedOnX, outer_mul_relu_backward, "wrong-result", "");
TP_WRONG(BackwardGateOpenAtZero, outer_mul_relu_backward, "wrong-result", "");
TP_WRONG(BackwardYByColumn, outer_mul_relu_backward, "out-of-bounds", "");
TP_CORPUS_TESTS("known-wrong-elementwise")
