// tl's elementwise math functions over inputs that reach their special cases (NaN, signed zeros,
// infinities, -1 for log1p, the ends of the float range, subnormals) and a sweep of magnitudes
// (tests/kernels/math_expected.hpp). tests/semantics.cpp checks the simulator's outputs against
// what docs/tl.md states; the GPU parity test checks the GPU's against the same, and against the
// simulator's bits.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// a, b, c hold N floats each; z holds MathFunctions<N>::outputs floats, function f of docs/tl.md's
// order at [f N, (f + 1) N): sigmoid, tanh, erf, log1p, rsqrt, sqrt, floor, ceil (of a),
// pow(a, b), fma(a, b, c).
template <int N, int Warps = 4>
struct MathFunctions {
  static constexpr int num_warps = Warps;
  static constexpr int functions = 10;
  static constexpr int outputs = functions * N;
  static constexpr int tile = N;

  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b,
                            tl::ptr<const float> c, tl::ptr<float> z, int n) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto va = tl::load(a + i, in, 0.0f);
    auto vb = tl::load(b + i, in, 0.0f);
    auto vc = tl::load(c + i, in, 0.0f);
    tl::store(z + 0 * N + i, tl::sigmoid(va), in);
    tl::store(z + 1 * N + i, tl::tanh(va), in);
    tl::store(z + 2 * N + i, tl::erf(va), in);
    tl::store(z + 3 * N + i, tl::log1p(va), in);
    tl::store(z + 4 * N + i, tl::rsqrt(va), in);
    tl::store(z + 5 * N + i, tl::sqrt(va), in);
    tl::store(z + 6 * N + i, tl::floor(va), in);
    tl::store(z + 7 * N + i, tl::ceil(va), in);
    tl::store(z + 8 * N + i, tl::pow(va, vb), in);
    tl::store(z + 9 * N + i, tl::fma(va, vb, vc), in);
  }
};

}  // namespace test_kernels
