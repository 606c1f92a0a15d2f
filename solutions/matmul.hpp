// Puzzle 14, matmul: batched z[b] = x[b] @ y[b], one B0 x B1 tile of z per program.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1, int B_MID>
struct Matmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    int batch = tl::program_id(2);
    auto x_batch = x + batch * N0 * MID;
    auto y_batch = y + batch * MID * N1;

    tl::tile<float, B0, B1> acc = 0.0f;
    for (auto k : tl::range(0, MID, B_MID)) {
      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(x_batch + rows.col() * MID + ks.row(),
                        (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y_batch + ks.col() * N1 + cols.row(),
                        (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + batch * N0 * N1 + rows.col() * N1 + cols.row(), acc,
              (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace solutions
