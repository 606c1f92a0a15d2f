// The corpus (tests/corpus.hpp) for puzzle 30, dropout: kernels that draw their random numbers
// from the wrong counters (the lane's place in its block, the program's id), leave the seed out,
// scale by p instead of 1 - p or keep the other side of p. Each fails on every seed with the kind
// beside its line at the bottom; the twin multiplies by the mask as the formula is written.
#include <catch2/catch.hpp>

#include "check_as_puzzle.hpp"
#include "checker/specs/dropout.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below: the counters the random numbers come from, the seed,
// the scale and the side of p that is kept.
enum class mistake { none, offsets_within_the_block, one_number_per_program, scaled_by_p,
                     keeping_below_p, without_the_seed };

template <int B0, mistake M>
struct dropout_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y,
                            int N0, int seed) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto x_block = tl::load(x + offsets, mask);
    float p0 = tl::load(p);
    auto counters = [&] {
      if constexpr (M == mistake::offsets_within_the_block) return tl::arange<B0>();
      else if constexpr (M == mistake::one_number_per_program) return offsets * 0 + tl::program_id(0);
      else return offsets;
    }();
    auto numbers = tl::rand(M == mistake::without_the_seed ? 0 : seed, counters);
    auto keep = [&] {
      if constexpr (M == mistake::keeping_below_p) return numbers < p0;
      else return numbers > p0;
    }();
    const float divisor = M == mistake::scaled_by_p ? p0 : 1.0f - p0;
    tl::store(y + offsets, tl::where(keep, x_block / divisor, 0.0f), mask);
  }
};

}  // namespace

namespace wrong {

// The counters are the lanes' places in the block: every program draws the same numbers, so
// every block of x gets the first block's mask.
template <int B0>
using DropoutOffsetsWithinTheBlock = dropout_with<B0, mistake::offsets_within_the_block>;
// One random number per program, from its id: a whole block kept or dropped together.
template <int B0>
using DropoutOneNumberPerProgram = dropout_with<B0, mistake::one_number_per_program>;
// The kept elements scaled by 1 / p: right only at p = 1/2.
template <int B0>
using DropoutScaledByP = dropout_with<B0, mistake::scaled_by_p>;
// Kept where the number is below p: the elements that should be dropped, about p of them.
template <int B0>
using DropoutKeepingBelowP = dropout_with<B0, mistake::keeping_below_p>;
// A fixed seed: the mask of seed 0 whatever the caller asks for.
template <int B0>
using DropoutWithoutTheSeed = dropout_with<B0, mistake::without_the_seed>;

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
