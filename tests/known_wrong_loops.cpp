// Known-wrong kernels for the puzzles with reductions and loops (long-sum, the softmaxes, flash
// attention, conv2d, matmul): each fails with the diagnostic kind a learner would meet, and the
// puzzle's solution passes through the same path. (tests/known_wrong.cpp has more for puzzles
// 3, 10, 12 and 14.)
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "check_as_puzzle.hpp"
#include "corpus.hpp"
#include "checker/specs/conv2d.hpp"
#include "checker/specs/flash_attention_simple.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/long_softmax_3loop.hpp"
#include "checker/specs/long_sum.hpp"
#include "checker/specs/matmul.hpp"
#include "checker/specs/softmax_fused.hpp"
#include "tests/kernels/flawed.hpp"
#include "tests/kernels/rows.hpp"

using namespace as_puzzle;

namespace wrong {

using flawed::attention;
using flawed::matmul;
using rows::load_block;
using rows::store_softmax;

// ---- long-sum: z[i] = sum_j x[i, j] ----

// Loads without `other`: the lanes past the end of a row are poison, and so is their sum.
template <int B0, int B1>
struct LongSumWithoutOther {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      row_sum = row_sum + tl::sum<1>(tl::load(x + rows.col() * T + cols.row(), mask));
    }
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// The full blocks of each row under an `if`, in a three-stage tl::range; the partial block
// masked. Unmasked along the row, it is right as the plain loop the simulator runs, but the GPU
// copies the full-block load two iterations ahead whatever the `if` says: past the end of x at
// the last row. Its correct twin masks that load along the row too.
template <int B0, int B1, bool MaskedAlongTheRow>
struct LongSumFullBlocksPipelinedAs {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (auto j : tl::range(0, T, B1, tl::num_stages<3>)) {
      auto cols = j + tl::arange<B1>();
      auto at = x + rows.col() * T + cols.row();
      auto whole_row_mask = (rows < N0).col() & (cols < T).row();
      if (j + B1 <= T && !MaskedAlongTheRow)
        row_sum = row_sum + tl::sum<1>(tl::load(at, (rows < N0).col(), 0.0f));
      else
        row_sum = row_sum + tl::sum<1>(tl::load(at, whole_row_mask, 0.0f));
    }
    tl::store(z + rows, row_sum, rows < N0);
  }
};
template <int B0, int B1>
using LongSumFullBlocksPipelined = LongSumFullBlocksPipelinedAs<B0, B1, false>;
template <int B0, int B1>
using LongSumFullBlocksPipelinedMasked = LongSumFullBlocksPipelinedAs<B0, B1, true>;

// Stops before the last, partial block of each row.
template <int B0, int B1>
struct LongSumSkippingTheTail {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j + B1 <= T; j += B1)  // j + B1 <= T: the partial block is never loaded
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// Forgets tl::program_id: every program sums the first B0 rows.
template <int B0, int B1>
struct LongSumWithoutProgramId {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::arange<B0>();  // no program_id(0) * B0: the first B0 rows in every program
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum + tl::sum<1>(load_block<B1>(x, rows, j, N0, T, 0.0f));
    tl::store(z + rows, row_sum, rows < N0);
  }
};

// ---- softmax-fused: each row in one tile ----

template <int B0, int B1, class Softmax>
void fused_softmax(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T, float other,
                   Softmax softmax) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto cols = tl::arange<B1>();
  auto offsets = rows.col() * T + cols.row();
  auto mask = (rows < N0).col() & (cols < T).row();
  tl::store(z + offsets, softmax(tl::load(x + offsets, mask, other)), mask);
}

// Pads the row with 0 instead of -inf: in a row whose elements are all negative the padding
// wins the maximum, and every padded lane adds exp(0) = 1 to the sum.
template <int B0, int B1>
struct SoftmaxFusedPaddingWithZero {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    fused_softmax<B0, B1>(x, z, N0, T, 0.0f, [](const auto& row) {
      auto numerator = tl::exp(row - tl::max<1>(row).col());
      return numerator / tl::sum<1>(numerator).col();
    });
  }
};

// Exponentiates x as it is: exp overflows on the large inputs.
template <int B0, int B1>
struct SoftmaxFusedWithoutMax {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    fused_softmax<B0, B1>(x, z, N0, T, -INFINITY, [](const auto& row) {
      auto numerator = tl::exp(row);
      return numerator / tl::sum<1>(numerator).col();
    });
  }
};

// Loads the row twice, once for the maximum and once for the exponentials.
template <int B0, int B1>
struct SoftmaxFusedLoadingTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto row_max = tl::max<1>(tl::load(x + offsets, mask, -INFINITY));
    auto numerator = tl::exp(tl::load(x + offsets, mask, -INFINITY) - row_max.col());
    tl::store(z + offsets, numerator / tl::sum<1>(numerator).col(), mask);
  }
};

// ---- long-softmax-3loop and long-softmax-2loop ----

// Three loops without a column mask: the last block of a row runs past its end.
template <int B0, int B1>
struct Softmax3LoopWithoutColumnMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = (rows < N0).col();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      row_max = tl::maximum(row_max, tl::max<1>(tl::load(x + rows.col() * T + cols.row(), mask,
                                                         -INFINITY)));
    }
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      row_sum = row_sum + tl::sum<1>(tl::exp(block - row_max.col()));
    }
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask);
      tl::store(z + rows.col() * T + cols.row(), tl::exp(block - row_max.col()) / row_sum.col(),
                mask);
    }
  }
};

// Three loops, but each block is normalized by its own sum instead of the row's.
template <int B0, int B1>
struct Softmax3LoopNormalizingEachBlock {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < T; j += B1)
      row_max = tl::maximum(row_max, tl::max<1>(load_block<B1>(x, rows, j, N0, T, -INFINITY)));
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto e = tl::exp(tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY) -
                       row_max.col());
      tl::store(z + rows.col() * T + cols.row(), e / tl::sum<1>(e).col(), mask);
    }
  }
};

// Two loops whose running sum is never rescaled when the maximum grows.
template <int B0, int B1>
struct Softmax2LoopWithoutRescaling {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto block = load_block<B1>(x, rows, j, N0, T, -INFINITY);
      row_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum + tl::sum<1>(tl::exp(block - row_max.col()));  // not rescaled
    }
    store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// ---- flash-attention-simple ----


// Keys past T load as 0 and get the score 0: they join the softmax's sum.
template <int B0, int B1>
struct FlashAttentionWithoutScoreMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    attention<B0, B1, false, true>(q, k, v, z, N0, T);
  }
};

// Loads the queries without a mask.
template <int B0, int B1>
struct FlashAttentionWithoutQueryMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    attention<B0, B1, true, false>(q, k, v, z, N0, T);
  }
};

// The correct twin of both, through the same helper.
template <int B0, int B1>
struct FlashAttentionThroughTheHelper {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    attention<B0, B1, true, true>(q, k, v, z, N0, T);
  }
};

// ---- matmul ----


// Loads the operands' masked-off lanes as poison: dot sums them into every lane.
template <int B0, int B1, int B_MID>
struct MatmulWithoutOther {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    matmul<B0, B1, B_MID, false, true>(x, y, z, N0, N1, N2, MID);
  }
};

// Stores every batch's tile into batch 0 of z.
template <int B0, int B1, int B_MID>
struct MatmulWithoutBatchOffsetOfZ {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    matmul<B0, B1, B_MID, true, false>(x, y, z, N0, N1, N2, MID);
  }
};

template <int B0, int B1, int B_MID>
struct MatmulThroughTheHelper {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    matmul<B0, B1, B_MID, true, true>(x, y, z, N0, N1, N2, MID);
  }
};

// ---- conv2d ----

template <int B0, int B1, bool MaskShiftedColumns, bool TransposedFilter, bool Other>
void conv2d(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z, int N0, int H,
            int W, int KH, int KW) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
  int image = tl::program_id(2);
  auto x_image = x + image * H * W;
  tl::tile<float, B0, B1> acc = 0.0f;
  for (int a = 0; a < KH; ++a) {
    for (int b = 0; b < KW; ++b) {
      float weight = tl::load(TransposedFilter ? k + b * KH + a : k + a * KW + b);
      auto r = rows + a;
      auto c = cols + b;
      auto inside_columns = [&] {
        if constexpr (MaskShiftedColumns) return c < W;
        else return cols < W;
      }();
      auto inside = (r < H).col() & inside_columns.row();
      tl::tile<float, B0, B1> window = 0.0f;
      if constexpr (Other) window = tl::load(x_image + r.col() * W + c.row(), inside, 0.0f);
      else window = tl::load(x_image + r.col() * W + c.row(), inside);
      acc = acc + window * weight;
    }
  }
  tl::store(z + image * H * W + rows.col() * W + cols.row(), acc,
            (rows < H).col() & (cols < W).row());
}

// Masks the window's columns where the output's are meant: taps past the right edge read the
// start of the next row, and past the last image's end.
template <int B0, int B1>
struct Conv2dMaskingOutputColumns {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    conv2d<B0, B1, false, false, true>(x, k, z, N0, H, W, KH, KW);
  }
};

// Reads the filter as k[b, a].
template <int B0, int B1>
struct Conv2dTransposedFilter {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    conv2d<B0, B1, true, true, true>(x, k, z, N0, H, W, KH, KW);
  }
};

// Loads the window without `other`: outside the image it is poison, not 0.
template <int B0, int B1>
struct Conv2dWithoutOther {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    conv2d<B0, B1, true, false, false>(x, k, z, N0, H, W, KH, KW);
  }
};

template <int B0, int B1>
struct Conv2dThroughTheHelper {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    conv2d<B0, B1, true, false, true>(x, k, z, N0, H, W, KH, KW);
  }
};

}  // namespace wrong

// ---------------------------------------------------------------------------------------------

TEST_CASE("Known-wrong long-sum kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::long_sum;
  SECTION("loading without `other` sums poison and stores it") {
    const auto report = check_wrong<wrong::LongSumWithoutOther, binding>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "poison-store");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{1, 1});
  }
  SECTION("a loop that stops before the partial block misses the end of every row") {
    const auto report = check_wrong<wrong::LongSumSkippingTheTail, binding>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{1, 1});  // the loop runs no step: z[0] = 0
    CHECK_THAT(d.message, Catch::Contains("yours 0, expected"));
  }
  SECTION("without tl::program_id every program writes the first rows") {
    const auto report = check_wrong<wrong::LongSumWithoutProgramId, binding>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{3, 65});  // B0 = 1: 3 programs write z[0]
  }
  SECTION("a load in an `if` of a pipelined range that the GPU copies past the end of x") {
    const auto report = check_wrong<wrong::LongSumFullBlocksPipelined, binding>("long-sum");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK_THAT(d.source, Catch::Contains("known_wrong_loops.cpp"));
    CHECK_THAT(d.message, Catch::Contains("On the GPU this load is copied 2 iterations ahead "
                                          "(tl::range's num_stages<3>)"));
    CHECK_THAT(d.message, Catch::Contains("Mask the load"));
    // Its twin, masked along the row, passes in the same three-stage range.
    CHECK(check_as<wrong::LongSumFullBlocksPipelinedMasked, binding>("long-sum").status ==
          tp::status::solved);
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("long-sum").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong softmax-fused kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::softmax_fused;
  SECTION("padding the row with 0 instead of -inf is wrong for rows of negative numbers") {
    const auto report = check_wrong<wrong::SoftmaxFusedPaddingWithZero, binding>("softmax-fused");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
  }
  SECTION("without subtracting the maximum, exp overflows") {
    const auto report = check_wrong<wrong::SoftmaxFusedWithoutMax, binding>("softmax-fused");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "nan-inf");
    CHECK(d.buffer == "z");
  }
  SECTION("loading the row twice breaks the one-read budget") {
    const auto report = check_wrong<wrong::SoftmaxFusedLoadingTwice, binding>("softmax-fused");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    CHECK_THAT(d.message, Catch::Contains("was read 2 times (at most 1 allowed)"));
  }
  SECTION("the reference solution passes the same checks") {
    CHECK(check_solution("softmax-fused").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong long-softmax kernels fail with their diagnostic", "[known-wrong]") {
  SECTION("3 loops without a column mask read past the end of x") {
    const auto report =
        check_wrong<wrong::Softmax3LoopWithoutColumnMask, tp::bindings::long_softmax_3loop>(
            "long-softmax-3loop");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(report.sizes == std::vector<int>{1, 1});
  }
  SECTION("3 loops normalizing each block by its own sum divide 0 by 0 in a row's small blocks") {
    // Far below the row's maximum every exp of a block underflows to 0: 0 / 0 is NaN where the
    // reference is a tiny number. The case whose rows peak in their last block makes it so.
    const auto report =
        check_wrong<wrong::Softmax3LoopNormalizingEachBlock, tp::bindings::long_softmax_3loop>(
            "long-softmax-3loop");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "nan-inf");
    CHECK(report.sizes == std::vector<int>{5, 131});  // each row's peak in its last block
    CHECK_THAT(d.message, Catch::Contains("About this case: Every row is small noise"));
  }
  SECTION("a 2-loop softmax that never rescales its running sum is wrong") {
    const auto report =
        check_wrong<wrong::Softmax2LoopWithoutRescaling, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
  }
  SECTION("the reference solutions pass the same checks") {
    CHECK(check_solution("long-softmax-3loop").status == tp::status::solved);
    CHECK(check_solution("long-softmax-2loop").status == tp::status::solved);
  }
}

TEST_CASE("Known-wrong flash-attention-simple kernels fail with their diagnostic",
          "[known-wrong]") {
  using binding = tp::bindings::flash_attention_simple;
  const char* id = "flash-attention-simple";
  SECTION("scores of the keys past T left unmasked join the softmax") {
    const auto report = check_wrong<wrong::FlashAttentionWithoutScoreMask, binding>(id);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{1, 1});
  }
  SECTION("queries loaded without a mask are read past the end of q") {
    const auto report = check_wrong<wrong::FlashAttentionWithoutQueryMask, binding, 2>(id);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "q");
  }
  SECTION("their twin, through the same helper, passes") {
    CHECK(check_as<wrong::FlashAttentionThroughTheHelper, binding>(id).status ==
          tp::status::solved);
  }
}

TEST_CASE("Known-wrong matmul kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::matmul;
  SECTION("operands loaded without `other` make dot's sums poison") {
    const auto report = check_wrong<wrong::MatmulWithoutOther, binding>("matmul");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "poison-store");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{1, 1, 1, 1});
  }
  SECTION("forgetting z's batch offset makes the batches race on batch 0") {
    const auto report = check_wrong<wrong::MatmulWithoutBatchOffsetOfZ, binding>("matmul");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{32, 32, 4, 32});  // the first case with 2 batches
  }
  SECTION("their twin, through the same helper, passes") {
    CHECK(check_as<wrong::MatmulThroughTheHelper, binding>("matmul").status ==
          tp::status::solved);
  }
}

TEST_CASE("Known-wrong conv2d kernels fail with their diagnostic", "[known-wrong]") {
  using binding = tp::bindings::conv2d;
  SECTION("masking the output's columns instead of the window's reads past the last image") {
    const auto report = check_wrong<wrong::Conv2dMaskingOutputColumns, binding>("conv2d");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
  }
  SECTION("reading the filter transposed is a wrong result") {
    const auto report = check_wrong<wrong::Conv2dTransposedFilter, binding>("conv2d");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{4, 8, 8, 4, 4});
  }
  SECTION("a window loaded without `other` is poison beyond the edges") {
    const auto report = check_wrong<wrong::Conv2dWithoutOther, binding>("conv2d");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "poison-store");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{4, 8, 8, 4, 4});
  }
  SECTION("their twin, through the same helper, passes") {
    CHECK(check_as<wrong::Conv2dThroughTheHelper, binding>("conv2d").status ==
          tp::status::solved);
    CHECK(check_solution("conv2d").status == tp::status::solved);
  }
}

// ---------------------------------------------------------------------------------------------
// In the corpus (tests/corpus.hpp): each fails with its kind on 20 seeds; the kernels through the
// helpers' correct settings are twins.

namespace twin {
template <int B0, int B1>
using FlashAttentionThroughTheHelper = wrong::FlashAttentionThroughTheHelper<B0, B1>;
template <int B0, int B1, int B_MID>
using MatmulThroughTheHelper = wrong::MatmulThroughTheHelper<B0, B1, B_MID>;
template <int B0, int B1>
using Conv2dThroughTheHelper = wrong::Conv2dThroughTheHelper<B0, B1>;
}  // namespace twin

TP_CORPUS_GROUP("known-wrong-loops");
TP_WRONG(LongSumWithoutOther, long_sum, "poison-store",
         "The poison comes from the masked load without `other`");
TP_WRONG(LongSumSkippingTheTail, long_sum, "wrong-result", "");
TP_WRONG(LongSumWithoutProgramId, long_sum, "race-write-write", "");
TP_WRONG(SoftmaxFusedPaddingWithZero, softmax_fused, "wrong-result", "");
TP_WRONG(SoftmaxFusedWithoutMax, softmax_fused, "nan-inf", "the first NaN is 0 / 0");
TP_WRONG(SoftmaxFusedLoadingTwice, softmax_fused, "efficiency-budget", "");
TP_WRONG(Softmax3LoopWithoutColumnMask, long_softmax_3loop, "out-of-bounds", "");
TP_WRONG(Softmax3LoopNormalizingEachBlock, long_softmax_3loop, "nan-inf", "");
TP_WRONG(Softmax2LoopWithoutRescaling, long_softmax_2loop, "wrong-result", "");
TP_WRONG(FlashAttentionWithoutScoreMask, flash_attention_simple, "wrong-result", "");
TP_WRONG_FIRST_CONFIGS(FlashAttentionWithoutQueryMask, flash_attention_simple, 2, "out-of-bounds",
                       "");
TP_WRONG(MatmulWithoutOther, matmul, "poison-store",
         "The poison comes from the masked load without `other`");
TP_WRONG(MatmulWithoutBatchOffsetOfZ, matmul, "race-write-write", "");
TP_WRONG(Conv2dMaskingOutputColumns, conv2d, "out-of-bounds", "");
TP_WRONG(Conv2dTransposedFilter, conv2d, "wrong-result", "");
TP_WRONG(Conv2dWithoutOther, conv2d, "poison-store",
         "The poison comes from the masked load without `other`");
TP_TWIN(FlashAttentionThroughTheHelper, flash_attention_simple);
TP_TWIN(MatmulThroughTheHelper, matmul);
TP_TWIN(Conv2dThroughTheHelper, conv2d);
TP_CORPUS_TESTS("known-wrong-loops")
