// Puzzle 36, int8-matmul: z = a_scale[i] * b_scale[j] * (a @ b)[i, j], the products of int8 a and b
// summed exactly in int32, the scales applied once at the end.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1, int B_K>
struct Int8Matmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const tl::int8> a, tl::ptr<const tl::int8> b,
                            tl::ptr<const float> a_scale, tl::ptr<const float> b_scale,
                            tl::ptr<float> z, int M, int N, int K) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();

    tl::tile<int, B0, B1> acc = 0;
    for (auto k : tl::range(0, K, B_K)) {
      auto ks = k + tl::arange<B_K>();
      auto a_tile = tl::load(a + rows.col() * K + ks.row(), (rows < M).col() & (ks < K).row(), 0);
      auto b_tile = tl::load(b + ks.col() * N + cols.row(), (ks < K).col() & (cols < N).row(), 0);
      acc = tl::dot(a_tile, b_tile, acc);
    }
    auto row_scale = tl::load(a_scale + rows, rows < M, 0.0f);
    auto col_scale = tl::load(b_scale + cols, cols < N, 0.0f);
    tl::store(z + rows.col() * N + cols.row(), tl::cast<float>(acc) * row_scale.col() * col_scale.row(),
              (rows < M).col() & (cols < N).row());
  }
};

}  // namespace solutions
