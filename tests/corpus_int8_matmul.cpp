// The corpus (tests/corpus.hpp) for puzzle 36, int8-matmul. Each wrong kernel below is a mistake
// that reads as right (the operands cast to float and summed in a float accumulator; the scales
// applied by the wrong index; the column scale left out; a loop that stops before a ragged last
// step), and each fails on every seed with the kind beside its line at the bottom.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/int8_matmul.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below.
enum class mistake {
  none,
  float_sum,          // tl::dot of the operands cast to float, into a float accumulator
  scales_swapped,     // a_scale indexed by the columns, b_scale by the rows
  column_scale_lost,  // only a_scale applied
  whole_steps_only,   // for (k = 0; k + B_K <= K; ...): a ragged last step dropped
};

template <int B0, int B1, int B_K, mistake M>
struct int8_matmul_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const tl::int8> a, tl::ptr<const tl::int8> b,
                            tl::ptr<const float> a_scale, tl::ptr<const float> b_scale,
                            tl::ptr<float> z, int M_, int N, int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    using acc_type = std::conditional_t<M == mistake::float_sum, float, int>;
    tl::tile<acc_type, B0, B1> acc = 0;
    const int end = M == mistake::whole_steps_only ? K - B_K + 1 : K;
    for (int k = 0; k < end; k += B_K) {
      auto ks = k + tl::arange<B_K>();
      auto a_tile = tl::load(a + rows.col() * K + ks.row(), (rows < M_).col() & (ks < K).row(), 0);
      auto b_tile = tl::load(b + ks.col() * N + cols.row(), (ks < K).col() & (cols < N).row(), 0);
      if constexpr (M == mistake::float_sum)
        acc = tl::dot(tl::cast<float>(a_tile), tl::cast<float>(b_tile), acc);
      else
        acc = tl::dot(a_tile, b_tile, acc);
    }
    auto row_scale = M == mistake::scales_swapped ? tl::load(a_scale + cols, cols < N, 0.0f)
                                                  : tl::load(a_scale + rows, rows < M_, 0.0f);
    auto col_scale = M == mistake::scales_swapped ? tl::load(b_scale + rows, rows < M_, 0.0f)
                                                  : tl::load(b_scale + cols, cols < N, 0.0f);
    auto scaled = tl::cast<float>(acc) * row_scale.col();
    if constexpr (M == mistake::column_scale_lost)
      tl::store(z + rows.col() * N + cols.row(), scaled, (rows < M_).col() & (cols < N).row());
    else
      tl::store(z + rows.col() * N + cols.row(), scaled * col_scale.row(),
                (rows < M_).col() & (cols < N).row());
  }
};

}  // namespace

namespace wrong {

// The operands cast to float and summed by a float tl::dot: exact while every sum stays below
// 2^24, so every small case passes; the case whose sums climb past 2.5e7 and come back does not.
template <int B0, int B1, int B_K>
using Int8MatmulFloatSum = int8_matmul_with<B0, B1, B_K, mistake::float_sum>;
// a_scale read by the columns and b_scale by the rows: wrong wherever two scales differ.
template <int B0, int B1, int B_K>
using Int8MatmulScalesSwapped = int8_matmul_with<B0, B1, B_K, mistake::scales_swapped>;
// The column scale left out: every element off by its column's factor.
template <int B0, int B1, int B_K>
using Int8MatmulColumnScaleLost = int8_matmul_with<B0, B1, B_K, mistake::column_scale_lost>;
// A loop over whole steps only: the last K % B_K products of every sum are never added.
template <int B0, int B1, int B_K>
using Int8MatmulWholeStepsOnly = int8_matmul_with<B0, B1, B_K, mistake::whole_steps_only>;

}  // namespace wrong

namespace twin {

// The scales combined first into a [B0, B1] tile of a_scale[i] * b_scale[j], the row and column
// masks kept as names, the sum's tl::dot written around its loads: the same exact int32 sum.
template <int B0, int B1, int B_K>
struct Int8MatmulScalesFirst {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const tl::int8> a, tl::ptr<const tl::int8> b,
                            tl::ptr<const float> a_scale, tl::ptr<const float> b_scale,
                            tl::ptr<float> z, int M, int N, int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto in_rows = rows < M;
    auto in_cols = cols < N;
    auto scale = tl::load(a_scale + rows, in_rows, 0.0f).col() *
                 tl::load(b_scale + cols, in_cols, 0.0f).row();
    tl::tile<int, B0, B1> sum = 0;
    for (int k = 0; k < K; k += B_K) {
      auto ks = k + tl::arange<B_K>();
      sum = tl::dot(tl::load(a + rows.col() * K + ks.row(), in_rows.col() & (ks < K).row(), 0),
                    tl::load(b + ks.col() * N + cols.row(), (ks < K).col() & in_cols.row(), 0),
                    sum);
    }
    tl::store(z + rows.col() * N + cols.row(), scale * tl::cast<float>(sum),
              in_rows.col() & in_cols.row());
  }
};

}  // namespace twin

TP_CORPUS_GROUP("int8 matmul");
TP_WRONG(Int8MatmulFloatSum, int8_matmul, "wrong-result", "case 8 of");
TP_WRONG(Int8MatmulScalesSwapped, int8_matmul, "wrong-result", "");
TP_WRONG(Int8MatmulColumnScaleLost, int8_matmul, "wrong-result", "");
TP_WRONG(Int8MatmulWholeStepsOnly, int8_matmul, "wrong-result", "");
TP_TWIN(Int8MatmulScalesFirst, int8_matmul);
TP_CORPUS_TESTS("int8 matmul")
