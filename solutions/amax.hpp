// Puzzle 32, amax: each program reduces its tile of x to one magnitude per row, then meets the
// row's other programs in amax with one tl::atomic_max per row.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Amax {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> amax, int N0, int N1) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto in_bounds = (rows < N0).col() & (cols < N1).row();
    // A lane past the edge must not win the max: 0 is the identity of a max of magnitudes
    // (-inf is not: its magnitude is inf).
    auto tile = tl::load(x + rows.col() * N1 + cols.row(), in_bounds, 0.0f);
    auto row_amax = tl::max<1>(tl::abs(tile));
    // Every program of a row writes the same element: atomics keep the largest, in any order,
    // and amax's zeros are already the identity.
    tl::atomic_max(amax + rows, row_amax, rows < N0);
  }
};

}  // namespace solutions
