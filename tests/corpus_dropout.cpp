// The corpus (tests/corpus.hpp) for puzzle 30, dropout: kernels that draw their random numbers
// from the wrong counters (the lane's place in its block, the program's id), leave the seed out,
// scale by p instead of 1 - p or keep the other side of p. Each fails on every seed with the kind
// beside its line at the bottom; the twin multiplies by the mask as the formula is written.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/dropout.hpp"
#include "corpus.hpp"

namespace wrong {

// The counters are the lanes' places in the block: every program draws the same numbers, so
// every block of x gets the first block's mask.
template <int B0>
struct DropoutOffsetsWithinTheBlock {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto keep = tl::rand(seed, tl::arange<B0>()) > p0;
    tl::store(y + offsets, tl::where(keep, x_block / (1.0f - p0), 0.0f), mask);
  }
};

// One random number per program, from its id: a whole block kept or dropped together.
template <int B0>
struct DropoutOneNumberPerProgram {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto keep = tl::rand(seed, offsets * 0 + tl::program_id(0)) > p0;
    tl::store(y + offsets, tl::where(keep, x_block / (1.0f - p0), 0.0f), mask);
  }
};

// The kept elements scaled by 1 / p: right only at p = 1/2.
template <int B0>
struct DropoutScaledByP {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto keep = tl::rand(seed, offsets) > p0;
    tl::store(y + offsets, tl::where(keep, x_block / p0, 0.0f), mask);
  }
};

// Kept where the number is below p: the elements that should be dropped, about p of them.
template <int B0>
struct DropoutKeepingBelowP {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto keep = tl::rand(seed, offsets) < p0;
    tl::store(y + offsets, tl::where(keep, x_block / (1.0f - p0), 0.0f), mask);
  }
};

// A fixed seed: the mask of seed 0 whatever the caller asks for.
template <int B0>
struct DropoutWithoutTheSeed {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto keep = tl::rand(0, offsets) > p0;
    tl::store(y + offsets, tl::where(keep, x_block / (1.0f - p0), 0.0f), mask);
  }
};

}  // namespace wrong

namespace twin {

// The formula as written, y = x * keep / (1 - p): the mask as 0 or 1 times x, times the scale.
template <int B0>
struct DropoutMultiplyingByTheMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    const float scale = 1.0f / (1.0f - p0);
    auto keep = tl::cast<float>(tl::rand(seed, offsets) > p0);
    tl::store(y + offsets, x_block * keep * scale, mask);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("dropout");
TP_WRONG(DropoutOffsetsWithinTheBlock, dropout, "wrong-result", "");
TP_WRONG(DropoutOneNumberPerProgram, dropout, "wrong-result", "");
TP_WRONG(DropoutScaledByP, dropout, "wrong-result", "");
TP_WRONG(DropoutKeepingBelowP, dropout, "wrong-result", "");
TP_WRONG(DropoutWithoutTheSeed, dropout, "wrong-result", "");
TP_TWIN(DropoutMultiplyingByTheMask, dropout);
TP_CORPUS_TESTS("dropout")
