// Puzzle 13, conv2d: z[n, i, j] = sum_{a, b} x[n, i + a, j + b] * k[a, b], zero beyond the
// bottom and right edges; one B0 x B1 tile of one image per program, a loop over the filter.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Conv2d {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z,
                            int N0, int H, int W, int KH, int KW) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    int image = tl::program_id(2);
    auto x_image = x + image * H * W;

    // Each filter tap (a, b) adds k[a, b] times the tile of x shifted by (a, b).
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int a = 0; a < KH; ++a) {
      for (int b = 0; b < KW; ++b) {
        float weight = tl::load(k + a * KW + b);
        auto shifted_rows = rows + a;
        auto shifted_cols = cols + b;
        auto inside = (shifted_rows < H).col() & (shifted_cols < W).row();
        auto window = tl::load(x_image + shifted_rows.col() * W + shifted_cols.row(), inside, 0.0f);
        acc = acc + window * weight;
      }
    }
    tl::store(z + image * H * W + rows.col() * W + cols.row(), acc,
              (rows < H).col() & (cols < W).row());
  }
};

}  // namespace solutions
