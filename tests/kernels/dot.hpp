// tl::dot in the ways a kernel meets it, for the GPU parity test against the simulator: a declared
// accumulator carried through a k-loop (it never converts on the GPU), dot without an
// accumulator, an accumulator that is an expression broadcast from a row, and operands that are
// lazy expressions (an integer cast, a scaled load) as well as loaded tiles. Non-square shapes.
//
// The operands are whole numbers in [-16, 16] (x and y scaled by 8 and truncated), so every
// product and partial sum is exact in float: any difference from the simulator is a wrong
// element, whatever the order of the sums. (Both backends fuse each multiply-add, and agree to
// the bit on any operands in order of k: tests/gpu/dot_parity.cpp.)
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// x and y hold `tile` floats each; z holds `outputs`. One program.
template <int M, int N, int K, int Warps>
struct Dot {
  static constexpr int num_warps = Warps;
  static constexpr int tile = 2 * (M * K > K * N ? M * K : K * N);
  static constexpr int slices = 4;
  static constexpr int outputs = slices * M * N;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    auto rows = tl::arange<M>();
    auto cols = tl::arange<N>();
    auto ks = tl::arange<K>();
    auto out = rows.col() * N + cols.row();
    auto whole = [](auto t) { return tl::cast<float>(tl::cast<int>(t * 8.0f)); };

    // Two steps along k into a declared accumulator.
    tl::tile<float, M, N> acc = 0.0f;
    for (int step = 0; step < 2; ++step) {
      auto a = whole(tl::load(x + step * M * K + rows.col() * K + ks.row()));
      auto b = whole(tl::load(y + step * K * N + ks.col() * N + cols.row()));
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + out, acc);

    // No accumulator; the operands as loaded data tiles.
    tl::tile<float, M, K> a = whole(tl::load(x + rows.col() * K + ks.row()));
    auto b = whole(tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f));
    tl::store(z + M * N + out, tl::dot(a, b));

    // An accumulator broadcast from a row, and operands that are expressions: whole numbers
    // through an integer cast (dot's operands share one dtype, so it is cast back) and a scaled b.
    auto bias = whole(tl::load(y + cols));
    auto whole_numbers = tl::cast<float>(tl::cast<int>(tl::load(x + rows.col() * K + ks.row()) * 4.0f));
    tl::store(z + 2 * M * N + out, tl::dot(whole_numbers, b * 2.0f, bias.row()));

    // acc += dot(a, b), as in Triton, on a 2-D accumulator that was used before.
    acc += tl::dot(a, b);
    tl::store(z + 3 * M * N + out, acc);
  }
};

}  // namespace test_kernels
