// The flash-attention-simple and matmul solutions' logic with switches for the flaws the
// known-wrong tests plant (tests/known_wrong.cpp, tests/known_wrong_loops.cpp): each wrong kernel
// is one of these with one switch off (or on), and its correct twin the same helper with every
// switch as the solution has it.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace flawed {

// q[N0], k[T], v[T] -> z[N0]; MaskScores: keys past T get the score -inf (without it they load as
// 0 and join the softmax's sum); MaskQueries: the queries' load masked by the rows;
// LoadKeysTwice: each block of k loaded twice.
template <int B0, int B1, bool MaskScores, bool MaskQueries, bool LoadKeysTwice = false>
void attention(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
               tl::ptr<float> z, int N0, int T) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto row_mask = rows < N0;
  tl::tile<float, B0> queries = 0.0f;
  if constexpr (MaskQueries) queries = tl::load(q + rows, row_mask, 0.0f);
  else queries = tl::load(q + rows);
  tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
  tl::tile<float, B0> row_sum = 0.0f;
  tl::tile<float, B0> out = 0.0f;
  for (int j = 0; j < T; j += B1) {
    auto cols = j + tl::arange<B1>();
    auto col_mask = cols < T;
    tl::tile<float, B1> keys = tl::load(k + cols, col_mask, 0.0f);
    if constexpr (LoadKeysTwice)  // each block of k read again: the result stays right
      keys = (keys + tl::load(k + cols, col_mask, 0.0f)) * 0.5f;
    auto values = tl::load(v + cols, col_mask, 0.0f);
    tl::tile<float, B0, B1> scores = queries.col() * keys.row();
    if constexpr (MaskScores) scores = tl::where(col_mask.row(), scores, -INFINITY);
    auto new_max = tl::maximum(row_max, tl::max<1>(scores));
    auto weights = tl::exp(scores - new_max.col());
    auto rescale = tl::exp(row_max - new_max);
    row_sum = row_sum * rescale + tl::sum<1>(weights);
    out = out * rescale + tl::sum<1>(weights * values.row());
    row_max = new_max;
  }
  tl::store(z + rows, out / row_sum, row_mask);
}

// x[N2, N0, MID] @ y[N2, MID, N1] -> z[N2, N0, N1]; Other: the loads' masked lanes 0 (without it
// they are poison); BatchOffsetOfZ: z offset to the program's batch; LoadXTwice: each tile of x
// loaded twice a step.
template <int B0, int B1, int B_MID, bool Other, bool BatchOffsetOfZ, bool LoadXTwice = false>
void matmul(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0, int N1,
            int N2, int MID) {
  auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
  auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
  int batch = tl::program_id(2);
  auto x_batch = x + batch * N0 * MID;
  auto y_batch = y + batch * MID * N1;
  tl::tile<float, B0, B1> acc = 0.0f;
  for (int k = 0; k < MID; k += B_MID) {
    auto ks = k + tl::arange<B_MID>();
    auto a_mask = (rows < N0).col() & (ks < MID).row();
    auto b_mask = (ks < MID).col() & (cols < N1).row();
    if constexpr (LoadXTwice) {  // each tile of x read twice a step: the result stays right
      auto a_once = tl::load(x_batch + rows.col() * MID + ks.row(), a_mask, 0.0f);
      auto a_again = tl::load(x_batch + rows.col() * MID + ks.row(), a_mask, 0.0f);
      acc = tl::dot((a_once + a_again) * 0.5f,
                    tl::load(y_batch + ks.col() * N1 + cols.row(), b_mask, 0.0f), acc);
    } else if constexpr (Other) {
      acc = tl::dot(tl::load(x_batch + rows.col() * MID + ks.row(), a_mask, 0.0f),
                    tl::load(y_batch + ks.col() * N1 + cols.row(), b_mask, 0.0f), acc);
    } else {
      acc = tl::dot(tl::load(x_batch + rows.col() * MID + ks.row(), a_mask),
                    tl::load(y_batch + ks.col() * N1 + cols.row(), b_mask), acc);
    }
  }
  auto z_batch = BatchOffsetOfZ ? z + batch * N0 * N1 : z;
  tl::store(z_batch + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
}

}  // namespace flawed
