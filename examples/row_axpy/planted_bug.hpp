// RowAxpy with a planted bug, for the simulator to catch: its mask covers the columns' edge only,
// so the last program's rows past R load outside x. One line differs from RowAxpy
// (row_axpy.hpp). The simulator tests catch it (row_axpy_test.cpp here, and
// examples/torch_row_axpy); it is never launched on the GPU, where the same loads would read
// whatever lies past x, silently.
#pragma once

#include "tile/tl.hpp"

template <int BR, int BC>
struct RowAxpyMaskingColumnsOnly {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> alpha, tl::ptr<const float> x,
                            tl::ptr<const float> y, tl::ptr<float> z, int R, int C) const {
    auto rows = tl::program_id(0) * BR + tl::arange<BR>();
    auto rows_inside = rows < R;
    auto scale = tl::load(alpha + rows, rows_inside);
    for (int c0 = 0; c0 < C; c0 += BC) {
      auto cols = c0 + tl::arange<BC>();
      auto inside = (cols < C).row();  // the bug: rows_inside.col() & left out
      auto offsets = rows.col() * C + cols.row();
      auto x_tile = tl::load(x + offsets, inside);
      auto y_tile = tl::load(y + offsets, inside);
      tl::store(z + offsets, scale.col() * x_tile + y_tile, inside);
    }
  }
};
