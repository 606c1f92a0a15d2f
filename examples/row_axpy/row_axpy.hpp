// A kernel of your own in `tl`: z[r, c] = alpha[r] * x[r, c] + y[r, c] for row-major R x C
// matrices, axpy with a scale per row. The same source is compiled by g++ for the simulator
// (row_axpy_test.cpp) and by nvcc for the GPU (row_axpy_gpu.cu).
#pragma once

#include "tile/tl.hpp"

// Each program takes BR rows and walks along them BC columns at a time: launch it on a grid of
// tl::cdiv(R, BR) programs.
template <int BR, int BC>
struct RowAxpy {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> alpha, tl::ptr<const float> x,
                            tl::ptr<const float> y, tl::ptr<float> z, int R, int C) const {
    auto rows = tl::program_id(0) * BR + tl::arange<BR>();
    auto rows_inside = rows < R;
    auto scale = tl::load(alpha + rows, rows_inside);  // [BR], one scale per row
    for (int c0 = 0; c0 < C; c0 += BC) {
      auto cols = c0 + tl::arange<BC>();
      auto inside = rows_inside.col() & (cols < C).row();  // [BR, BC]: both edges
      auto offsets = rows.col() * C + cols.row();
      auto x_tile = tl::load(x + offsets, inside);
      auto y_tile = tl::load(y + offsets, inside);
      tl::store(z + offsets, scale.col() * x_tile + y_tile, inside);
    }
  }
};
