// The corpus (tests/corpus.hpp) for the losses of volume 2 (19 softmax-backward, 20
// cross-entropy). Most of these wrong kernels pass on inputs that are too kind; the puzzles'
// cases against them (rows of y nearly one-hot, logits far above or below zero or near 3e4, a
// maximum in the last block, ignored targets) make them fail on every seed.
#include <catch2/catch.hpp>

#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/cross_entropy.hpp"
#include "checker/specs/softmax_backward.hpp"
#include "corpus.hpp"

namespace wrong {

// ---- softmax-backward ----

// The diagonal of the softmax's Jacobian only, dx = y * (1 - y) * dy: each element's own term,
// and none of the row's others.
template <int B0, int B1>
struct SoftmaxBackwardDiagonalOnly {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto probs = tl::load(y + offsets, mask);
    auto grads = tl::load(dy + offsets, mask);
    tl::store(dx + offsets, probs * (1.0f - probs) * grads, mask);
  }
};

// y loaded with -inf past the row's end, as the forward softmax loads x: 0 * -inf is NaN, and it
// enters every row's sum.
template <int B0, int B1>
struct SoftmaxBackwardPaddingFromTheForwardPass {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto probs = tl::load(y + offsets, mask, -INFINITY);
    auto grads = tl::load(dy + offsets, mask, 0.0f);
    auto weighted = tl::sum<1>(probs * grads);
    tl::store(dx + offsets, probs * (grads - weighted.col()), mask);
  }
};

// The sum of dy unweighted, sum(dy), where the gradient needs sum(dy * y).
template <int B0, int B1>
struct SoftmaxBackwardUnweightedSum {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto probs = tl::load(y + offsets, mask, 0.0f);
    auto grads = tl::load(dy + offsets, mask, 0.0f);
    tl::store(dx + offsets, probs * (grads - tl::sum<1>(grads).col()), mask);
  }
};

// y loaded again for the product after the sum: right, and y is read twice.
template <int B0, int B1>
struct SoftmaxBackwardLoadingYTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto grads = tl::load(dy + offsets, mask, 0.0f);
    auto weighted = tl::sum<1>(tl::load(y + offsets, mask, 0.0f) * grads);
    tl::store(dx + offsets, tl::load(y + offsets, mask) * (grads - weighted.col()), mask);
  }
};

// The loads under the columns' mask only: the rows of the last program past N0 read past the
// end of y.
template <int B0, int B1>
struct SoftmaxBackwardWithoutTheRowMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offsets = rows.col() * T + cols.row();
    auto probs = tl::load(y + offsets, (cols < T).row(), 0.0f);
    auto grads = tl::load(dy + offsets, (cols < T).row(), 0.0f);
    auto weighted = tl::sum<1>(probs * grads);
    tl::store(dx + offsets, probs * (grads - weighted.col()), (rows < N0).col() & (cols < T).row());
  }
};

// ---- cross-entropy ----

// The running sum is not rescaled when the maximum grows: the blocks before keep the weights of
// an older, smaller maximum.
template <int B0, int B1>
struct CrossEntropyWithoutRescaling {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      row_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum += tl::sum<1>(tl::exp(block - row_max.col()));
    }
    tl::store(loss + rows, tl::where(counted, (row_max - target_logit) + tl::log(row_sum), 0.0f),
              rows < N0);
  }
};

// No maximum at all: every logit shifted by the row's target logit instead, log(sum exp(x - x_t)),
// which is the loss on paper, and exp overflows wherever a logit exceeds the target's by 89.
template <int B0, int B1>
struct CrossEntropyShiftedByTheTarget {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      row_sum += tl::sum<1>(tl::exp(block - target_logit.col()));
    }
    tl::store(loss + rows, tl::where(counted, tl::log(row_sum), 0.0f), rows < N0);
  }
};

// The logsumexp formed first, max + log(sum), and the target's logit subtracted from it: near 3e4
// (above zero or below) the logsumexp is rounded to a multiple of 0.002 before the difference is
// taken.
template <int B0, int B1>
struct CrossEntropyLogsumexpFirst {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    tl::tile<float, B0> lse = row_max + tl::log(row_sum);
    tl::store(loss + rows, tl::where(counted, lse - target_logit, 0.0f), rows < N0);
  }
};

// The padding and the first maximum at -1e4, "far below any logit": not below rows at -3e4,
// whose every exp then underflows to 0 once shifted by -1e4.
template <int B0, int B1>
struct CrossEntropyFinitePadding {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-1e4f);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -1e4f);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    tl::store(loss + rows, tl::where(counted, (row_max - target_logit) + tl::log(row_sum), 0.0f),
              rows < N0);
  }
};

// The gather under the row mask only: an ignored row's target, -100, is read as a column, 100
// elements before its row (and before the tensor for row 0).
template <int B0, int B1>
struct CrossEntropyGatheringIgnoredRows {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, rows < N0, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    tl::store(loss + rows, tl::where(counted, (row_max - target_logit) + tl::log(row_sum), 0.0f),
              rows < N0);
  }
};

// The loss as -log(p), p the target's probability exp(x_t - max) / sum: p underflows to 0 for a
// target far below the row's maximum, and -log(0) is inf.
template <int B0, int B1>
struct CrossEntropyFromTheProbability {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    auto counted = (rows < N0) & (targets != -100);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    auto probability = tl::exp(target_logit - row_max) / row_sum;
    tl::store(loss + rows, tl::where(counted, -tl::log(probability), 0.0f), rows < N0);
  }
};

// Puzzle 9's two loops, one for the maximum and one for the sum, the target's logit picked out of
// the second: right, each logit read twice, and the logits read 2 * N0 * V times in all.
template <int B0, int B1>
struct CrossEntropyInTwoPasses {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      row_max = tl::maximum(row_max, tl::max<1>(block));
    }
    tl::tile<float, B0> row_sum = 0.0f, target_logit = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      row_sum += tl::sum<1>(tl::exp(block - row_max.col()));
      target_logit += tl::sum<1>(tl::where(cols.row() == targets.col(), block, 0.0f));
    }
    tl::store(loss + rows,
              tl::where(targets != -100, (row_max - target_logit) + tl::log(row_sum), 0.0f),
              rows < N0);
  }
};

}  // namespace wrong

namespace twin {

// ---- softmax-backward ----

// The product distributed, y * dy - y * s, and the padding cleaned with `where` instead of
// loaded as 0.
template <int B0, int B1>
struct SoftmaxBackwardDistributed {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> y, tl::ptr<const float> dy, tl::ptr<float> dx,
                            int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto probs = tl::load(y + rows.col() * T + cols.row(), mask);
    auto grads = tl::load(dy + rows.col() * T + cols.row(), mask);
    auto product = tl::where(mask, probs * grads, 0.0f);
    auto weighted = tl::sum<1>(product);
    tl::store(dx + rows.col() * T + cols.row(), product - probs * weighted.col(), mask);
  }
};

// ---- cross-entropy ----

// No gather: the target's logit picked out of the block that holds it, as the loop passes it
// (a sum over the block of the one lane whose column is the target), and exp2 instead of exp.
template <int B0, int B1>
struct CrossEntropyPickingTheTargetInTheLoop {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    constexpr float log2e = 1.4426950408889634f;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto targets = tl::load(target + rows, rows < N0, -100);
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    tl::tile<float, B0> target_logit = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto block = tl::load(logits + rows.col() * V + cols.row(),
                            (rows < N0).col() & (cols < V).row(), -INFINITY);
      target_logit += tl::sum<1>(tl::where(cols.row() == targets.col(), block, 0.0f));
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp2((row_max - new_max) * log2e) +
                tl::sum<1>(tl::exp2((block - new_max.col()) * log2e));
      row_max = new_max;
    }
    auto row_loss = (row_max - target_logit) + tl::log(row_sum);
    tl::store(loss + rows, tl::where(targets == -100, 0.0f, row_loss), rows < N0);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("losses");
TP_WRONG(SoftmaxBackwardDiagonalOnly, softmax_backward, "wrong-result", "");
TP_WRONG(SoftmaxBackwardPaddingFromTheForwardPass, softmax_backward, "nan-inf", "");
TP_WRONG(SoftmaxBackwardUnweightedSum, softmax_backward, "wrong-result", "");
TP_WRONG(SoftmaxBackwardLoadingYTwice, softmax_backward, "efficiency-budget", "at most 1 allowed");
TP_WRONG_FIRST_CONFIGS(SoftmaxBackwardWithoutTheRowMask, softmax_backward, 2, "out-of-bounds",
                       "loads from y outside");
TP_WRONG(CrossEntropyWithoutRescaling, cross_entropy, "wrong-result", "+500");
TP_WRONG(CrossEntropyShiftedByTheTarget, cross_entropy, "nan-inf", "");
TP_WRONG(CrossEntropyLogsumexpFirst, cross_entropy, "wrong-result", "3e4");
TP_WRONG(CrossEntropyFinitePadding, cross_entropy, "wrong-result", "about -3e4");
TP_WRONG(CrossEntropyGatheringIgnoredRows, cross_entropy, "out-of-bounds", "loads from logits");
TP_WRONG(CrossEntropyFromTheProbability, cross_entropy, "nan-inf", "");
TP_WRONG(CrossEntropyInTwoPasses, cross_entropy, "efficiency-budget", "N0 * V + N0");
TP_TWIN(SoftmaxBackwardDistributed, softmax_backward);
TP_TWIN(CrossEntropyPickingTheTargetInTheLoop, cross_entropy);
TP_CORPUS_TESTS("losses")
