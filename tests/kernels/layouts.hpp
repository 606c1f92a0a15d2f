// A kernel that makes the GPU backend move data between layouts in every way tl allows: loaded
// tiles accumulated into a declared 2-D tile (the mma accumulator layout where it fits) and stored
// from it, reductions along each axis broadcast back, 1-D loads broadcast along rows and columns,
// data tiles in masks, offsets and values of a larger shape (the constructs that once compiled
// into an unmasked store), a rank-3 tile, integer and mask tiles. The GPU parity test compares it
// with the simulator for several shapes and warp counts.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace test_kernels {

// x holds B0 * B1 floats, y holds B1; z holds Layouts<...>::outputs floats. One program.
template <int B0, int B1, int Warps>
struct Layouts {
  static constexpr int num_warps = Warps;
  static constexpr int tile = B0 * B1;
  static constexpr int slices = 12;
  static constexpr int outputs = slices * tile;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    auto rows = tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offs = rows.col() * B1 + cols.row();
    auto in = offs < n;
    auto slice = [&](int s) { return z + s * tile + offs; };

    auto block = tl::load(x + offs, in, 0.0f);
    auto column = tl::load(y + cols, cols < n, 0.0f);  // [B1], blocked 1-D
    auto firsts = tl::load(x + rows * B1);              // [B0], one per row

    // A declared accumulator fed by loaded tiles, stored from its own layout.
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < 3; ++k) acc = acc * 0.5f + block * static_cast<float>(k + 1);
    tl::store(slice(0), acc, in);

    // Reductions along each axis and over everything, broadcast back.
    auto row_max = tl::max<1>(block);
    auto col_sum = tl::sum<0>(block);
    auto col_min = tl::min<0>(block, tl::keep_dims);
    tl::store(slice(1), block - row_max.col() + col_sum.row() * col_min, in);
    tl::store(slice(2), tl::sum(block) + tl::max(column) + tl::min(firsts) + 0.0f * block, in);

    // 1-D data tiles along both axes, and declared 1-D tiles that carry reductions.
    tl::tile<float, B0> running = tl::full<B0>(-INFINITY);
    tl::tile<float, B1> totals = 0.0f;
    for (int k = 0; k < 2; ++k) {
      running = tl::maximum(running, tl::max<1>(block + k));
      totals = totals + tl::sum<0>(block * column.row());
    }
    tl::store(slice(3), firsts.col() * column.row() + running.col() - totals.row(), in);

    // Data tiles in masks, offsets and values of a larger shape.
    auto positive = column > 0.0f;                                   // [B1] data mask
    tl::store(slice(4), 1.0f, in & positive);                        // store mask from data
    tl::store(slice(4), -1.0f, in & !positive);
    auto shift = tl::cast<int>(column > 0.5f);                       // [B1] data, 0 or 1
    auto shifted = tl::load(x + rows.col() * B1 + (cols.row() + shift) % B1, in);  // load offsets
    tl::store(slice(5), shifted, in);
    auto gathered = tl::load(x + offs, in & positive, -2.0f);        // load mask from data
    tl::store(slice(6), gathered, in);
    tl::store(z + 7 * tile + rows.col() * B1 + cols.row(), column, in);  // values [B1] over [B0, B1]
    tl::store(z + 8 * tile + rows.col() * B1 + (B1 - 1 - cols.row()), block * 2.0f, in);

    // Integer and mask tiles; a rank-3 tile built and reduced.
    tl::tile<int, B0> counts = tl::sum<1>(block > 0.0f);
    tl::store(slice(9), tl::cast<float>(counts.col() * 2 - tl::cast<int>(positive).row()), in);
    auto cube = tl::cast<float>(tl::expand_dims<2>(tl::arange<2>().col()) * 1000 + rows.col() * B1 +
                                tl::expand_dims<0>(cols.row()) * 0 + cols.row());  // [2, B0, B1]
    auto planes = tl::sum<0>(cube + tl::expand_dims<0>(block));                      // [B0, B1]
    tl::store(slice(10), planes, in);
    tl::store(slice(11), tl::sum<0>(tl::max<2>(cube + tl::expand_dims<0>(block))).col() + 0.0f * block,
              in);
  }
};

}  // namespace test_kernels
