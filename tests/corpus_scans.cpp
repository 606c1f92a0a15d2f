// The corpus (tests/corpus.hpp) for the puzzles of tl's scans, index reductions and sorts:
// 25 prefix-sum, 26 argmax, 27 top-k. Each wrong kernel below is a mistake that reads as right
// (an inclusive bound, a tie, a padding value, a merge), and each fails on every seed with the
// kind beside its line at the bottom.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/argmax.hpp"
#include "checker/specs/prefix_sum.hpp"
#include "checker/specs/top_k.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below, puzzle by puzzle: each kernel is the reference's
// but for its one mistake.
enum class prefix_mistake { no_carry, exclusive, one_carry_per_program };
enum class argmax_mistake { ties_to_later_block, starts_at_zero, blind_to_nan, index_starts_at_minus_one };
enum class top_k_mistake { runs_of_one_order, last_block_only, padding_zero };

template <int B0, int B1, prefix_mistake M>
struct prefix_sum_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    [[maybe_unused]] tl::tile<float, B0> carry = 0.0f;
    [[maybe_unused]] float program_carry = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f);
      auto out = z + rows.col() * T + cols.row();
      if constexpr (M == prefix_mistake::no_carry) {
        tl::store(out, tl::cumsum<1>(block), mask);
      } else if constexpr (M == prefix_mistake::exclusive) {
        tl::store(out, carry.col() + tl::cumsum<1>(block) - block, mask);
        carry += tl::sum<1>(block);
      } else {
        tl::store(out, program_carry + tl::cumsum<1>(block), mask);
        program_carry += tl::sum(block);
      }
    }
  }
};

template <int B0, int B1, argmax_mistake M>
struct argmax_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<int> index, int N0, int T) const {
    constexpr float padding = M == argmax_mistake::starts_at_zero ? 0.0f : -INFINITY;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> best = padding;
    tl::tile<int, B0> best_col = M == argmax_mistake::index_starts_at_minus_one ? -1 : 0;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, padding);
      auto block_best = tl::max<1>(block);
      auto nan_here = block_best != block_best;
      auto beats = [&] {
        if constexpr (M == argmax_mistake::ties_to_later_block) return (block_best >= best) | nan_here;
        else if constexpr (M == argmax_mistake::blind_to_nan) return block_best > best;
        else return (block_best > best) | (nan_here & (best == best));
      }();
      best_col = tl::where(beats, j + tl::argmax<1>(block), best_col);
      best = tl::where(beats, block_best, best);
    }
    tl::store(index + rows, best_col, rows < N0);
  }
};

template <int B0, int B1, top_k_mistake M>
struct top_k_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> top, int N0, int T,
                            int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0, B1> best = -INFINITY;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask,
                            M == top_k_mistake::padding_zero ? 0.0f : -INFINITY);
      if constexpr (M == top_k_mistake::runs_of_one_order)
        best = tl::sort<1>(tl::maximum(best, tl::sort<1>(block, tl::descending)), tl::descending);
      else if constexpr (M == top_k_mistake::last_block_only)
        best = tl::sort<1>(block, tl::descending);
      else
        best = tl::sort<1>(tl::maximum(best, tl::sort<1>(block)), tl::descending);
    }
    auto ks = tl::arange<B1>();
    tl::store(top + rows.col() * K + ks.row(), best, (rows < N0).col() & (ks < K).row());
  }
};

}  // namespace

namespace wrong {

// ---- prefix-sum ----

// Each block scanned on its own: the sums of the blocks before it never arrive.
template <int B0, int B1>
using PrefixSumWithoutCarry = prefix_sum_with<B0, B1, prefix_mistake::no_carry>;
// The exclusive scan: z[r, c] without x[r, c] itself.
template <int B0, int B1>
using PrefixSumExclusive = prefix_sum_with<B0, B1, prefix_mistake::exclusive>;
// One carry for the whole program: right with one row a program (B0 = 1), wrong with four.
template <int B0, int B1>
using PrefixSumOneCarryPerProgram = prefix_sum_with<B0, B1, prefix_mistake::one_carry_per_program>;

// ---- argmax ----

// A later block that ties takes over (>= where > belongs): the last of equal values.
template <int B0, int B1>
using ArgmaxTiesGoToTheLaterBlock = argmax_with<B0, B1, argmax_mistake::ties_to_later_block>;
// The running best starts at 0 and the padding loads as 0: rows below zero never beat it.
template <int B0, int B1>
using ArgmaxStartsAtZero = argmax_with<B0, B1, argmax_mistake::starts_at_zero>;
// Only a larger number beats the running best: a NaN never gets in.
template <int B0, int B1>
using ArgmaxBlindToNan = argmax_with<B0, B1, argmax_mistake::blind_to_nan>;
// The running index starts at -1, as "nothing found yet": a row of -inf is never beaten.
template <int B0, int B1>
using ArgmaxIndexStartsAtMinusOne = argmax_with<B0, B1, argmax_mistake::index_starts_at_minus_one>;

// ---- top-k ----

// The block merged largest first, the same order as the candidates: the lane-by-lane maximum of
// two runs that fall together is not the larger half of both.
template <int B0, int B1>
using TopKMergesRunsOfOneOrder = top_k_with<B0, B1, top_k_mistake::runs_of_one_order>;
// Each block sorted, and the last one's kept: nothing carries the earlier blocks' values, and
// where the last block is short its padding (-inf) is stored.
template <int B0, int B1>
using TopKOfTheLastBlock = top_k_with<B0, B1, top_k_mistake::last_block_only>;
// The padding loaded as 0: it outranks every value of a row below zero.
template <int B0, int B1>
using TopKPaddingZero = top_k_with<B0, B1, top_k_mistake::padding_zero>;

}  // namespace wrong

namespace twin {

// ---- prefix-sum ----

// The scan as an associative_scan of +, the padding loaded as poison and cleaned with `where`,
// the carry taken from the last lane of the block's scan.
template <int B0, int B1>
struct PrefixSumByAssociativeScan {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> carry = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::where(mask, tl::load(x + rows.col() * T + cols.row(), mask), 0.0f);
      auto running = carry.col() + tl::associative_scan<1>(block, [](auto a, auto b) { return a + b; });
      tl::store(z + rows.col() * T + cols.row(), running, mask);
      carry = tl::sum<1>(tl::where(tl::arange<B1>() == B1 - 1, running, 0.0f));
    }
  }
};

// ---- argmax ----

// No tl::argmax: each block's column as the smallest column holding the block's best (or a NaN),
// and the running pair updated by its own rule.
template <int B0, int B1>
struct ArgmaxBySmallestMatchingColumn {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<int> index, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> best = -INFINITY;
    tl::tile<int, B0> best_col = 0;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      auto block_best = tl::max<1>(block, tl::keep_dims);
      auto holds_best = (block == block_best) | (block != block);
      auto block_col = tl::min<1>(tl::where(holds_best, cols.row(), T));
      auto flat_best = tl::max<1>(block);
      auto nan_here = flat_best != flat_best, nan_before = best != best;
      auto beats = (!nan_before) & (nan_here | (flat_best > best));
      best_col = tl::where(beats, block_col, best_col);
      best = tl::where(beats, flat_best, best);
    }
    tl::store(index + rows, best_col, rows < N0);
  }
};

// ---- top-k ----

// The candidates kept smallest first instead, the block merged largest first, and the answer
// stored from the end of the candidates.
template <int B0, int B1>
struct TopKCandidatesAscending {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> top, int N0, int T,
                            int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0, B1> best = -INFINITY;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = (rows < N0).col() & (cols < T).row();
      auto block = tl::load(x + rows.col() * T + cols.row(), mask, -INFINITY);
      best = tl::sort<1>(tl::maximum(best, tl::sort<1>(block, tl::descending)));
    }
    auto rank = (B1 - 1) - tl::arange<B1>();  // lane B1 - 1 holds the largest
    tl::store(top + rows.col() * K + rank.row(), best, (rows < N0).col() & (rank < K).row());
  }
};

}  // namespace twin

TP_CORPUS_GROUP("scans");
TP_WRONG(PrefixSumWithoutCarry, prefix_sum, "wrong-result", "");
TP_WRONG(PrefixSumExclusive, prefix_sum, "wrong-result", "");
TP_WRONG_FIRST_CONFIGS(PrefixSumOneCarryPerProgram, prefix_sum, 2, "wrong-result", "");
TP_WRONG(ArgmaxTiesGoToTheLaterBlock, argmax, "wrong-result", "");
TP_WRONG(ArgmaxStartsAtZero, argmax, "wrong-result", "");
TP_WRONG(ArgmaxBlindToNan, argmax, "wrong-result", "");
TP_WRONG(ArgmaxIndexStartsAtMinusOne, argmax, "wrong-result", "");
TP_WRONG(TopKMergesRunsOfOneOrder, top_k, "wrong-result", "");
TP_WRONG(TopKOfTheLastBlock, top_k, "nan-inf", "lanes reach the output");
TP_WRONG(TopKPaddingZero, top_k, "wrong-result", "");
TP_TWIN(PrefixSumByAssociativeScan, prefix_sum);
TP_TWIN(ArgmaxBySmallestMatchingColumn, argmax);
TP_TWIN(TopKCandidatesAscending, top_k);
TP_CORPUS_TESTS("scans")
