// What a report says beyond its kind, where the cause is not at the line that failed: the load
// whose masked-off lanes decide a wrong sum or maximum, and the block sizes with which a kernel
// covers its output where it does so only for some. Each message next to a twin that must not
// get it.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "check_as_puzzle.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/long_sum.hpp"
#include "checker/specs/vector_add.hpp"

namespace wrong {

// A row sum whose masked-off lanes load as 1: every row of a ragged block gains them.
template <int B0, int B1>
struct LongSumMaskedLanesOfOne {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto padded_with_ones = tl::load(x + rows.col() * T + cols.row(), mask, 1.0f);
      row_sum = row_sum + tl::sum<1>(padded_with_ones);
    }
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// A row sum counted twice: wrong, with `other` where it belongs.
template <int B0, int B1>
struct LongSumTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      row_sum = row_sum + tl::sum<1>(tl::load(x + rows.col() * T + cols.row(), mask, 0.0f));
    }
    tl::store(z + rows, 2.0f * row_sum, rows < N0);
  }
};

// The online softmax with masked-off lanes loaded as 0: they win the maximum of a row of negative
// numbers and add exp(0 - max) each to the sum.
template <int B0, int B1>
struct SoftmaxMaskedLanesOfZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto padded_with_zeros = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
      auto block = padded_with_zeros;
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask);
      tl::store(z + rows.col() * T + cols.row(), tl::exp(block - row_max.col()) / row_sum.col(),
                mask);
    }
  }
};

// 32 lanes a program whatever B0 is: the grid is covered with B0 = 32 only.
template <int B0>
struct VectorAddOf32Lanes {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<32>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// 16 lanes a program: the grid is covered with no block size.
template <int B0>
struct VectorAddOf16Lanes {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<16>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

}  // namespace wrong

using namespace as_puzzle;

namespace {
const std::string this_file = "tests/learner_messages.cpp";
}

TEST_CASE("A wrong result decided by masked-off lanes names the load and the `other` that fixes it",
          "[messages]") {
  SECTION("a sum whose masked lanes load as 1: with 0 the run is right") {
    const auto report =
        check_wrong<wrong::LongSumMaskedLanesOfOne, tp::bindings::long_sum>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    const std::string load =
        this_file + ":" + std::to_string(line_of(this_file, "auto padded_with_ones = "));
    CHECK_THAT(d.message, Catch::Contains("The lanes that the mask of the load at " + load +
                                          " switches off hold its `other`, 1, and they decide "
                                          "this result: with 0 in their place, this run is "
                                          "right."));
    CHECK(d.source == load);
    CHECK_THAT(d.cause, Catch::Contains("`other` = 1 of the masked load at " + load));
  }
  SECTION("a maximum whose masked lanes load as 0: with -inf the run is right") {
    const auto report =
        check_wrong<wrong::SoftmaxMaskedLanesOfZero, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    const auto& d = the_diagnostic(report);
    CHECK((d.kind == "wrong-result" || d.kind == "nan-inf"));
    const std::string load =
        this_file + ":" + std::to_string(line_of(this_file, "auto padded_with_zeros = "));
    CHECK_THAT(d.message, Catch::Contains("the load at " + load + " switches off hold its `other`, "
                                          "0, and they decide this result: with -inf in their "
                                          "place, this run is right."));
  }
  SECTION("twin: a sum wrong for another reason says nothing of `other`") {
    const auto report = check_wrong<wrong::LongSumTwice, tp::bindings::long_sum>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK_THAT(d.message, !Catch::Contains("`other`"));
    CHECK(d.source.empty());
  }
}

TEST_CASE("An output covered with some block sizes only names the block sizes that cover it",
          "[messages]") {
  SECTION("32 lanes a program: covered with B0 = 32, not with 256") {
    const auto report = check_as<wrong::VectorAddOf32Lanes, tp::bindings::vector_add>("vector-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK(report.blocks == std::vector<int>{256});
    CHECK_THAT(d.message, Catch::Contains("With B0=32 the kernel writes every element of z in this "
                                          "case, and with these block sizes it does not: is B0 "
                                          "written as a number somewhere"));
    CHECK_THAT(d.message, !Catch::Contains("Does the grid cover every element"));
  }
  SECTION("twin: 16 lanes a program, covered with no block size: the grid and the mask") {
    const auto report = check_as<wrong::VectorAddOf16Lanes, tp::bindings::vector_add>("vector-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK_THAT(d.message, Catch::Contains("Does the grid cover every element"));
    CHECK_THAT(d.message, !Catch::Contains("the kernel writes every element"));
  }
}
