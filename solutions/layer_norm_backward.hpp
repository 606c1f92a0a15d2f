// Puzzle 24, layer-norm-backward: dx of each row from x, dy, w and the saved mean and rstd, each
// row in one tile; dw and db summed over the program's slab of rows into its row of the partial
// buffers (Triton's tutorial 05, with one slab per program in place of its locks).
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct LayerNormBackward {
  // 16 elements of the block per thread, 1 to 16 warps (as the norms).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    const int p = tl::program_id(0);
    const int rows_per_program = tl::cdiv(N0, G);
    const int first_row = p * rows_per_program;
    // The slab ends at the next program's first row, or at N0, whichever comes first.
    const int end_row = std::min(first_row + rows_per_program, N0);

    auto cols = tl::arange<B1>();
    auto col_mask = cols < D;
    // Lanes past D hold w = 0, and below dy = 0: they add nothing to the sums.
    auto weight = tl::load(w + cols, col_mask, 0.0f);
    tl::tile<float, B1> dw_sum = 0.0f;
    tl::tile<float, B1> db_sum = 0.0f;

    for (int r = first_row; r < end_row; r += B0) {
      auto rows = r + tl::arange<B0>();
      auto row_mask = rows < end_row;
      auto mask = row_mask.col() & col_mask.row();
      auto offsets = rows.col() * D + cols.row();

      auto block = tl::load(x + offsets, mask, 0.0f);
      auto grad = tl::load(dy + offsets, mask, 0.0f);
      auto row_mean = tl::load(mean + rows, row_mask, 0.0f);
      auto row_rstd = tl::load(rstd + rows, row_mask, 0.0f);

      auto xhat = tl::where(mask, (block - row_mean.col()) * row_rstd.col(), 0.0f);
      auto wdy = weight.row() * grad;
      // y moves every element of its row through mean and rstd: two row means carry that back.
      auto c1 = tl::sum<1>(xhat * wdy) / D;
      auto c2 = tl::sum<1>(wdy) / D;
      tl::store(dx + offsets, (wdy - (xhat * c1.col() + c2.col())) * row_rstd.col(), mask);

      dw_sum += tl::sum<0>(grad * xhat);
      db_sum += tl::sum<0>(grad);
    }
    // Stored by every program, one whose slab is empty too (G > N0): its partials are 0.
    tl::store(partial_dw + p * D + cols, dw_sum, col_mask);
    tl::store(partial_db + p * D + cols, db_sum, col_mask);
  }
};

}  // namespace solutions
