// Puzzle 20, cross-entropy: loss = logsumexp(logits) - logits[target] for each row of a long
// logits[N0, V], with the online logsumexp of puzzle 10 in one pass and the target's logit
// gathered by a masked load.
#pragma once

#include <algorithm>
#include <cmath>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct CrossEntropy {
  // 16 elements of the block per thread, 1 to 16 warps (as the softmaxes).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> logits, tl::ptr<const int> target,
                            tl::ptr<float> loss, int N0, int V) const {
    constexpr int ignore_index = -100;
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;

    // The target's logit of each row, one lane per row at the column its target names. An
    // ignored row's lane is switched off: its target names no column, and nothing is read.
    auto targets = tl::load(target + rows, row_mask, ignore_index);
    auto counted = row_mask & (targets != ignore_index);
    auto target_logit = tl::load(logits + rows * V + targets, counted, 0.0f);

    // logsumexp in one pass: the online maximum and sum of puzzle 10.
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < V; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < V).row();
      auto block = tl::load(logits + rows.col() * V + cols.row(), mask, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }

    // logsumexp - target logit, as (max - target logit) + log(sum): the two large numbers meet
    // first, where their difference is exact, and the small log(sum) is added to it.
    auto row_loss = (row_max - target_logit) + tl::log(row_sum);
    tl::store(loss + rows, tl::where(counted, row_loss, 0.0f), row_mask);
  }
};

}  // namespace solutions
