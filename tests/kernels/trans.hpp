// tl::trans on both backends.
//
// Transposes: a loaded tile's transpose stored back (on the GPU its registers as loaded, stored in
// the transposed layout), its transpose met by a tile loaded in the blocked layout of the new
// shape (a conversion), reduced along either axis, transposed twice, assigned to a declared tile,
// and the transpose of a lazy tile; ragged masks, the mask transposed too. The GPU parity test
// (tests/gpu/parity.cpp) compares every output with the simulator's.
//
// MatmulTrans: z = x @ y as tl::dot(a, tl::trans(b_rows), acc), b_rows the [B1, BK] rows of yᵀ
// (flash attention's q kᵀ), and optionally a as tl::trans of its [BK, B0] columns; for every
// operand precision, on ragged shapes (tests/gpu/dot_parity.cpp, against the simulator and, for
// exact float32, the host's product). y is [MID, N1] in memory as for MatmulPrecision, so b_rows
// is read with a stride here: what this tests is dot's lowering of a transposed operand (its
// layout holds consecutive k), which does not depend on where the tile came from.
#pragma once

#include <type_traits>

#include "tile/tl.hpp"

namespace test_kernels {

template <class T, int R, int C, int Warps>
struct Transposes {
  static constexpr int num_warps = Warps;
  static constexpr int tile = R * C;
  static constexpr int outputs = 6 * R * C + R + C;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    (void)n;
    auto r = tl::arange<R>();
    auto c = tl::arange<C>();
    auto in = (r < R - 1).col() & (c < C - 3).row();                       // ragged: [R, C]
    auto xs = tl::cast<T>(tl::load(x + r.col() * C + c.row(), in, 0.5f));  // [R, C]
    auto xt = tl::trans(xs);                                              // [C, R]
    auto at_t = c.col() * R + r.row();                                    // [C, R] row-major
    constexpr int RC = R * C;

    tl::store(z + at_t, tl::cast<float>(xt), tl::trans(in));
    auto ys = tl::cast<T>(tl::load(y + at_t));                            // blocked [C, R]
    tl::store(z + RC + at_t, tl::cast<float>(xt + ys));
    tl::store(z + 2 * RC + c, tl::cast<float>(tl::sum<1>(tl::cast<float>(xt))));
    tl::store(z + 2 * RC + C + r, tl::cast<float>(tl::max<0>(xt)));
    tl::store(z + 2 * RC + C + R + r.col() * C + c.row(), tl::cast<float>(tl::trans(xt)) * 2.0f);
    tl::tile<T, C, R> declared = xt;
    tl::store(z + 3 * RC + C + R + at_t, tl::cast<float>(declared - tl::trans(xs) * 0.5f));
    auto lazy = tl::trans(r.col() * 1000 + c.row());                      // no data: [C, R]
    tl::store(z + 4 * RC + C + R + at_t, tl::cast<float>(lazy) + tl::cast<float>(xt));
    // A transposed tile in a dot-free product with a column and a row of other layouts.
    auto row_max = tl::max<1>(xs);                                        // [R], a slice
    tl::store(z + 5 * RC + C + R + at_t,
              tl::cast<float>(xt) * tl::cast<float>(row_max).row() + tl::cast<float>(c).col());
  }
};

template <class T, class Precision, int B0, int B1, int BK, int Warps, bool TransA>
struct MatmulTrans {
  static constexpr int num_warps = Warps;
  static constexpr int block_rows = B0, block_cols = B1;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int N0,
                            int N1, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += BK) {
      auto ks = k + tl::arange<BK>();
      auto b_rows = tl::load(y + ks.row() * N1 + cols.col(), (cols < N1).col() & (ks < MID).row(), 0.0f);
      auto a = [&] {
        if constexpr (TransA)
          return tl::trans(tl::load(x + rows.row() * MID + ks.col(), (ks < MID).col() & (rows < N0).row(), 0.0f));
        else
          return tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
      }();
      if constexpr (std::is_same_v<Precision, tl::tf32_t>)
        acc = tl::dot(a, tl::trans(b_rows), acc, tl::tf32);
      else
        acc = tl::dot(a, tl::trans(b_rows), acc);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace test_kernels
