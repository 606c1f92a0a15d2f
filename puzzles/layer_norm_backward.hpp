// Puzzle 24, layer-norm-backward: the gradients of puzzle 18's layer norm, dx for each row of
// x[N0, D], and dw and db as partial sums, one row of partials per program.
// Read docs/puzzles/layer-norm-backward.md, write the kernel below, then run
// `./build/tilepuzzles check 24`.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace puzzles {

// The forward pass made y = xhat * w + b with xhat = (x - mean) * rstd along each row, and saved
// mean[N0] and rstd[N0]; dy[N0, D] is the gradient of the loss with respect to y. The checker
// launches G programs; program p owns the slab of R = cdiv(N0, G) rows p*R .. p*R + R - 1 (those
// below N0), B0 rows at a time, each row in one tile (D <= B1). For each row of its slab:
//   dx = (w * dy - (xhat * c1 + c2)) * rstd,  c1 = mean_c(xhat * w * dy),  c2 = mean_c(w * dy)
// and, summed over the rows of its slab, one row of each partial buffer [G, D]:
//   partial_dw[p, c] = sum_r dy[r, c] * xhat[r, c],   partial_db[p, c] = sum_r dy[r, c].
// (dw and db are the sums of these G rows: a second, small reduction.) Each element of x, dy,
// mean and rstd may be read once, each program may read each element of w once, and each element
// of dx, partial_dw and partial_db is written once.
template <int B0, int B1>
struct LayerNormBackward {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> dy,
                            tl::ptr<const float> w, tl::ptr<const float> mean,
                            tl::ptr<const float> rstd, tl::ptr<float> dx,
                            tl::ptr<float> partial_dw, tl::ptr<float> partial_db, int N0, int D,
                            int G) const {
    // Your code here.
  }
};

}  // namespace puzzles
