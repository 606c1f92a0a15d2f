// The cases where backends (and Triton) are known to disagree, in one kernel: NaN and signed
// zeros in maximum/minimum and in max/min reductions, exp, exp2 and division, and integer steps
// near the ends of int32. tests/semantics.cpp checks the simulator's outputs against the
// semantics docs/tl.md states; the GPU parity test checks the GPU's against the same.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// a and b hold N floats each; z holds Semantics<N>::outputs floats:
//   [0, N)        maximum(a, b)         [N, 2N)   minimum(a, b)
//   [2N, 2N+R)    max<1> of a as [R, 8] [2N+R, 2N+2R) min<1> of the same rows     (R = N / 8)
//   [3N, 4N)      exp(a)                [4N, 5N)  exp2(a)         [5N, 6N) a / b
//   [6N, 7N)      (i + 10^9) * 2 - 2 * 10^9 - i, as float (2e9 + 2i: inside int32 at every step)
template <int N, int Warps = 4>
struct Semantics {
  static constexpr int num_warps = Warps;
  static constexpr int rows = N / 8;
  static constexpr int outputs = 7 * N;

  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> z,
                            int n) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto va = tl::load(a + i, in, 0.0f);
    auto vb = tl::load(b + i, in, 1.0f);
    tl::store(z + i, tl::maximum(va, vb), in);
    tl::store(z + N + i, tl::minimum(va, vb), in);

    auto r = tl::arange<rows>();
    auto c = tl::arange<8>();
    auto grid = tl::load(a + r.col() * 8 + c.row());
    tl::store(z + 2 * N + r, tl::max<1>(grid));
    tl::store(z + 2 * N + rows + r, tl::min<1>(grid));

    tl::store(z + 3 * N + i, tl::exp(va), in);
    tl::store(z + 4 * N + i, tl::exp2(va), in);
    tl::store(z + 5 * N + i, va / vb, in);

    const int big = 1'000'000'000;
    tl::store(z + 6 * N + i, tl::cast<float>((i + big) * 2 - 2 * big - i), in);
  }
};

}  // namespace test_kernels
