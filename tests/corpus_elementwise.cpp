// The corpus (tests/corpus.hpp) for the elementwise puzzles 1 to 7: wrong kernels a learner
// writes, each with the kind it must fail with on every seed, and correct twins written
// differently from the reference solutions.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/constant_add.hpp"
#include "checker/specs/constant_add_block.hpp"
#include "checker/specs/outer_add.hpp"
#include "checker/specs/outer_add_block.hpp"
#include "checker/specs/outer_mul_relu.hpp"
#include "checker/specs/outer_mul_relu_backward.hpp"
#include "checker/specs/vector_add.hpp"
#include "corpus.hpp"

namespace wrong {

// Stops at element 1024: "no vector is longer than that".
template <int B0>
struct ConstantAddBlockStoppingAt1024 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    if (tl::program_id(0) * B0 >= 1024) return;
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + 10.0f, mask);
  }
};

// Stops at element 2^19: "no vector is longer than that". Only the large tier's 2^20 + 3
// elements show it.
template <int B0>
struct VectorAddStoppingAt2To19 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    if (tl::program_id(0) * B0 >= (1 << 19)) return;
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// Offsets scaled up by 2^20 for "precision" and back down: past 2048 elements the product leaves
// int32.
template <int B0>
struct VectorAddScalingOffsetsUp {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto scaled = (tl::program_id(0) * B0 + tl::arange<B0>()) * 1048576;
    auto offsets = scaled / 1048576;
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// Offsets kept "far from zero" with a bias near INT_MAX, taken off again: the sum leaves int32 from
// offset 48 on. The GPU would wrap it there and wrap it back, so only a check of every integer step
// finds it; the report names the addition and its line.
template <int B0>
struct VectorAddThroughABiasNearIntMax {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    const int bias = 2'147'483'600;
    auto biased = (tl::program_id(0) * B0 + tl::arange<B0>()) + bias;
    auto offsets = biased - bias;
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// Adds the last element of the previous program's block, as if programs ran in order.
template <int B0>
struct VectorAddReadingThePreviousBlock {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    const int first = tl::program_id(0) * B0;
    auto offsets = first + tl::arange<B0>();
    auto mask = offsets < N0;
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    if (first > 0) sum = sum + tl::load(z + (first - 1)) * 0.0f;
    tl::store(z + offsets, sum, mask);
  }
};

// Rows of z at a stride of 64, the width of the first case it was tried on.
template <int B0, int B1>
struct OuterAddWithStride64 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<B0>();
    auto j = tl::arange<B1>();
    tl::store(z + j.col() * 64 + i.row(), tl::load(y + j).col() + tl::load(x + i).row());
  }
};

// Rows of z at a stride of N1, the length of y, instead of N0: rows overlap, and two lanes of
// one store write one element.
template <int B0, int B1>
struct OuterAddBlockStridingByN1 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto mask = (j < N1).col() & (i < N0).row();
    tl::store(z + j.col() * N1 + i.row(),
              tl::load(y + j, j < N1).col() + tl::load(x + i, i < N0).row(), mask);
  }
};

// Forgets tl::program_id(1): every program of a grid column writes the first rows.
template <int B0, int B1>
struct OuterAddBlockWithoutProgramId1 {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::arange<B1>();
    auto mask = (j < N1).col() & (i < N0).row();
    tl::store(z + j.col() * N0 + i.row(),
              tl::load(y + j, j < N1).col() + tl::load(x + i, i < N0).row(), mask);
  }
};

// The row stride left out: z + j + i instead of z + j * N0 + i. Lanes (j, i) and (j + 1, i - 1)
// of one store land on the same element, a race on the GPU (two threads writing one element),
// whether or not the puzzle has a budget on writes.
template <int B0, int B1>
struct OuterAddBlockWithoutTheRowStride {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto mask = (j < N1).col() & (i < N0).row();
    tl::store(z + j.col() + i.row(),
              tl::load(y + j, j < N1).col() + tl::load(x + i, i < N0).row(), mask);
  }
};

// relu gated on x alone: where(x > 0, x * y, 0).
template <int B0, int B1>
struct OuterMulGatedOnX {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto x_row = tl::load(x + i, i < N0, 0.0f).row();
    auto y_col = tl::load(y + j, j < N1, 0.0f).col();
    tl::store(z + j.col() * N0 + i.row(), tl::where(x_row > 0.0f, x_row * y_col, 0.0f),
              (j < N1).col() & (i < N0).row());
  }
};

// The running maximum against 0 kept in a tile that was never given a value.
template <int B0, int B1>
struct OuterMulReluFromAnUnsetTile {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B1, B0> out;  // "tiles start at zero"
    out = tl::maximum(out, tl::load(y + j, j < N1, 0.0f).col() * tl::load(x + i, i < N0, 0.0f).row());
    tl::store(z + j.col() * N0 + i.row(), out, (j < N1).col() & (i < N0).row());
  }
};

// The gradient without dz: (x * y > 0) * y.
template <int B0, int B1>
struct BackwardWithoutDz {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto offsets = j.col() * N0 + i.row();
    auto mask = (j < N1).col() & (i < N0).row();
    auto x_tile = tl::load(x + offsets, mask, 0.0f);
    auto y_col = tl::load(y + j, j < N1, 0.0f).col();
    tl::store(dx + offsets, tl::where(x_tile * y_col > 0.0f, y_col, 0.0f), mask);
  }
};

}  // namespace wrong

namespace wrong {

// Offsets through a bias of a billion, taken off again: inside int32 for every case, the large
// tier's 2^20 + 3 elements too, but past it once N0 passes 2^31 - 10^9, which the size bound
// N0 = 2^31 - 1 reaches.
template <int B0>
struct VectorAddThroughABiasOfABillion {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    const int bias = 1'000'000'000;
    auto biased = tl::program_id(0) * B0 + tl::arange<B0>() + bias;
    auto mask = biased < N0 + bias;
    auto offsets = biased - bias;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

}  // namespace wrong

namespace twin {

// The same with a bias of minus a billion: offsets from -10^9 to 2^31 - 1 - 10^9, inside int32
// at every size the puzzle allows.
template <int B0>
struct VectorAddThroughANegativeBias {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    const int bias = -1'000'000'000;
    auto biased = tl::program_id(0) * B0 + tl::arange<B0>() + bias;
    auto mask = biased < N0 + bias;
    auto offsets = biased - bias;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// Two stores of half a vector each, through a pointer advanced to the second half.
template <int B0>
struct ConstantAddInTwoHalves {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    constexpr int half = B0 / 2;
    auto lanes = tl::arange<half>();
    tl::store(z + lanes, 10.0f + tl::load(x + lanes));
    tl::ptr<const float> x_second = x + half;
    tl::ptr<float> z_second = z + half;
    tl::store(z_second + lanes, 10.0f + tl::load(x_second + lanes));
  }
};

// The load without `other`, its masked-off lanes cleaned with `where` before the arithmetic.
template <int B0>
struct ConstantAddBlockCleaningWithWhere {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto inside = offsets < N0;
    auto clean = tl::where(inside, tl::load(x + offsets, inside), 0.0f);
    tl::store(z + offsets, clean + 10.0f, inside);
  }
};

// Programs interleaved: program p takes elements p, p + G, p + 2G, ... for a grid of G programs.
template <int B0>
struct VectorAddInterleaved {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) + tl::arange<B0>() * tl::num_programs(0);
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(y + offsets, mask, 0.0f) + tl::load(x + offsets, mask, 0.0f),
              mask);
  }
};

// One row of z at a time, through a pointer advanced by N0 per row.
template <int B0, int B1>
struct OuterAddRowByRow {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::arange<B0>();
    auto x_row = tl::load(x + i);
    tl::ptr<float> z_row = z;
    for (int j = 0; j < N1; ++j) {
      tl::store(z_row + i, x_row + tl::load(y + j));
      z_row = z_row + N0;
    }
  }
};

// Pointers advanced to the program's tile first; masks from what is left of each axis.
template <int B0, int B1>
struct OuterAddBlockFromTheTileCorner {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    const int first_col = tl::program_id(0) * B0, first_row = tl::program_id(1) * B1;
    tl::ptr<const float> x_tile = x + first_col;
    tl::ptr<const float> y_tile = y + first_row;
    tl::ptr<float> z_tile = z + first_row * N0 + first_col;
    auto i = tl::arange<B0>();
    auto j = tl::arange<B1>();
    auto cols_left = i < N0 - first_col;
    auto rows_left = j < N1 - first_row;
    auto sum = tl::load(x_tile + i, cols_left, 0.0f).row() + tl::load(y_tile + j, rows_left, 0.0f).col();
    tl::store(z_tile + j.col() * N0 + i.row(), sum, rows_left.col() & cols_left.row());
  }
};

// relu with `where` on the product.
template <int B0, int B1>
struct OuterMulReluWithWhere {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto product = tl::load(x + i, i < N0, 0.0f).row() * tl::load(y + j, j < N1, 0.0f).col();
    tl::store(z + j.col() * N0 + i.row(), tl::where(product > 0.0f, product, 0.0f),
              (j < N1).col() & (i < N0).row());
  }
};

// The gate as a sign test: x * y > 0 when both are nonzero with the same sign.
template <int B0, int B1>
struct BackwardWithSignTest {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<const float> dz, tl::ptr<float> dx, int N0, int N1) const {
    auto i = tl::program_id(0) * B0 + tl::arange<B0>();
    auto j = tl::program_id(1) * B1 + tl::arange<B1>();
    auto offsets = j.col() * N0 + i.row();
    auto mask = (j < N1).col() & (i < N0).row();
    auto x_tile = tl::load(x + offsets, mask, 0.0f);
    auto y_col = tl::load(y + j, j < N1, 0.0f).col();
    auto open = ((x_tile > 0.0f) & (y_col > 0.0f)) | ((x_tile < 0.0f) & (y_col < 0.0f));
    tl::store(dx + offsets, tl::where(open, tl::load(dz + offsets, mask, 0.0f) * y_col, 0.0f),
              mask);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("elementwise");
TP_WRONG(ConstantAddBlockStoppingAt1024, constant_add_block, "unwritten-output", "");
TP_WRONG(VectorAddStoppingAt2To19, vector_add, "unwritten-output", "N0=1048579");
TP_WRONG(VectorAddScalingOffsetsUp, vector_add, "index-overflow", "multiplication");
TP_WRONG(VectorAddThroughABiasNearIntMax, vector_add, "index-overflow",
         "the int32 addition at this line leaves int32");
TP_WRONG(VectorAddThroughABiasOfABillion, vector_add, "index-overflow",
         "size bound N0=2147483647");
TP_WRONG(VectorAddReadingThePreviousBlock, vector_add, "race-read-write", "");
TP_WRONG(OuterAddWithStride64, outer_add, "out-of-bounds", "");
TP_WRONG(OuterAddBlockStridingByN1, outer_add_block, "race-write-write", "two lanes");
TP_WRONG(OuterAddBlockWithoutProgramId1, outer_add_block, "race-write-write", "");
TP_WRONG(OuterAddBlockWithoutTheRowStride, outer_add_block, "race-write-write",
         "two lanes of this store write z[");
TP_WRONG(OuterMulGatedOnX, outer_mul_relu, "wrong-result", "");
TP_WRONG(OuterMulReluFromAnUnsetTile, outer_mul_relu, "poison-store",
         "The poison comes from a tl::tile declared without a value");
TP_WRONG(BackwardWithoutDz, outer_mul_relu_backward, "wrong-result", "");
TP_TWIN(ConstantAddInTwoHalves, constant_add);
TP_TWIN(ConstantAddBlockCleaningWithWhere, constant_add_block);
TP_TWIN(VectorAddInterleaved, vector_add);
TP_TWIN(VectorAddThroughANegativeBias, vector_add);
TP_TWIN(OuterAddRowByRow, outer_add);
TP_TWIN(OuterAddBlockFromTheTileCorner, outer_add_block);
TP_TWIN(OuterMulReluWithWhere, outer_mul_relu);
TP_TWIN(BackwardWithSignTest, outer_mul_relu_backward);
TP_CORPUS_TESTS("elementwise")
