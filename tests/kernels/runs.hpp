// A kernel whose loads and stores put every case of a vector access in front of the GPU
// backend: a vector fully on, cut by a ragged bound, cut by a lower bound inside it, on through
// an `|`, cut by `!=` (evaluated lane by lane), offsets that run backwards or with a stride,
// a base off the vector grid, and the same in a pipelined tl::range. The GPU parity test compares
// it with the simulator, where a wrong "whole vector" answer moves masked lanes or wrong elements.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// x holds B0 * B1 floats; z holds VectorRuns<...>::outputs floats. One program.
template <int B0, int B1, int Warps>
struct VectorRuns {
  static constexpr int num_warps = Warps;
  static constexpr int tile = B0 * B1;
  static constexpr int slices = 10;
  static constexpr int outputs = slices * tile;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    auto rows = tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offs = rows.col() * B1 + cols.row();
    int width = n / B0 - 3;  // a ragged row: the last vector of each row is cut
    auto slice = [&](int s) { return z + s * tile + offs; };

    tl::store(slice(0), tl::load(x + offs, cols.row() < width, -1.0f));
    tl::store(slice(1), tl::load(x + offs, (cols.row() < width) | (rows.col() == 1), -2.0f));
    tl::store(slice(2), tl::load(x + offs, cols.row() != 2, -3.0f));
    tl::store(slice(3), tl::load(x + offs, cols.row() >= 3, -4.0f));
    tl::store(slice(4), tl::load(x + rows.col() * B1 + (B1 - 1 - cols).row()));  // backwards
    tl::store(slice(5), tl::load(x + rows.col() + cols.row() * B0));              // a stride
    tl::store(slice(6), tl::load((x + 1) + offs, offs < n - 1, -5.0f));          // off the grid

    // The same loads copied ahead by a pipelined range.
    tl::tile<float, B0, B1> acc = 0.0f;
    for (auto k : tl::range(0, 3, 1, tl::num_stages<2>)) {
      acc = acc + tl::load(y + offs, cols.row() + k < width, 0.5f) +
            tl::load(x + offs + k, (cols.row() >= k) & (offs + k < n), 0.25f);
    }
    tl::store(slice(7), acc);

    // Stores cut the same ways.
    tl::store(slice(8), 0.0f);
    tl::store(slice(8), tl::load(x + offs), cols.row() < width);
    tl::store(slice(9), 0.0f);
    tl::store(slice(9), tl::load(y + offs), (cols.row() >= 3) & (rows.col() < B0 - 1));
    tl::store(slice(9), 7.0f, (cols.row() == 1) | (rows.col() == B0 - 1));
  }
};

}  // namespace test_kernels
