// Descriptor loads in a pipelined tl::range (cuda/ring.cuh: rings of slots the copy engine fills
// ahead, which dot reads in place), against the same loops with a plain range, bit for bit (the
// operands are whole numbers, so every sum is exact). What a ring must get right: a ragged last
// block (zeros past the shape), b loaded as [N, K] and used as tl::trans (dot reads the slot as
// the rows of bᵀ), the tile's registers used besides the dot, a copy of the tile as the operand
// (dot stages it itself), loads in an `if` that some iterations skip (the ring drains, and the
// site loads plainly from then on), two loads of one type in one iteration (the second one is no
// ring), a coordinate besides the index that changes in the loop and a descriptor made in the loop
// (the copies ahead are of the claim's: those iterations load plainly), a coordinate `k + 0`
// (not the index itself: no ring), and a ring inside a range that holds a ring of the same blocks
// (the inner one loads plainly).
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

template <class T, int Stages, int M, int N, int K, int Warps>
struct DescriptorRing {
  using operand = T;
  static constexpr int num_warps = Warps;
  static constexpr int kdim = 5 * K + 8;  // x: [M, kdim] (and [N, kdim] as bᵀ), y: [kdim, N]; rows of x
  // 16-byte aligned, as the copy engine needs, and a last block of 8 columns
  static constexpr int tile = (M > N ? M : N) * kdim;
  static constexpr int computations = 10;
  static constexpr int pipelined_half = computations * M * N;
  static constexpr int outputs = 2 * pipelined_half;
  static_assert(K <= N, "the tile of maxima is stored in an [M, N] slice");

  template <class Loop>
  static TL_FN void compute(Loop loop, tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) {
    auto rows = tl::arange<M>();
    auto cols = tl::arange<N>();
    auto slice = [&](int s) { return z + s * M * N + rows.col() * N + cols.row(); };
    auto xd = tl::make_tensor_descriptor(x, {M, n}, {n, 1}, tl::block_shape<M, K>);
    auto yd = tl::make_tensor_descriptor(y, {n, N}, {N, 1}, tl::block_shape<K, N>);

    // A matmul with a ragged last block.
    tl::tile<float, M, N> acc = 0.0f;
    for (auto k : loop(0, n, K)) acc = tl::dot(xd.load({0, k}), yd.load({k, 0}), acc);
    tl::store(slice(0), acc);

    // b as tl::trans of [N, K] rows of x, and a's registers used too.
    auto xt = tl::make_tensor_descriptor(x, {N, n}, {n, 1}, tl::block_shape<N, K>);
    tl::tile<float, M, N> acc1 = 0.0f;
    tl::tile<float, M, K> highest = -1000.0f;
    for (auto k : loop(0, n, K)) {
      auto a = xd.load({0, k});
      acc1 = tl::dot(a, tl::trans(xt.load({0, k})), acc1);
      highest = tl::maximum(highest, tl::cast<float>(a));
    }
    tl::store(slice(1), acc1);
    tl::store(z + 2 * M * N + rows.col() * N + tl::arange<K>().row(), highest);

    // A copy of the tile as the operand.
    tl::tile<float, M, N> acc3 = 0.0f;
    for (auto k : loop(0, n, K)) {
      auto a = xd.load({0, k});
      auto b = yd.load({k, 0});
      auto copied = b;
      acc3 = tl::dot(a, copied, acc3);
    }
    tl::store(slice(3), acc3);

    // Loads in an `if` that every third iteration skips, from the second on.
    tl::tile<float, M, N> acc4 = 0.0f;
    for (auto k : loop(0, n, K)) {
      if ((k / K) % 3 != 1) acc4 = tl::dot(xd.load({0, k}), yd.load({k, 0}), acc4);
    }
    tl::store(slice(4), acc4);

    // Two loads of one type in one iteration: the second is no ring.
    auto xd8 = tl::make_tensor_descriptor(x + 8 * n, {M - 8, n}, {n, 1}, tl::block_shape<M, K>);
    tl::tile<float, M, N> acc5 = 0.0f;
    for (auto k : loop(0, n, K)) {
      auto b = yd.load({k, 0});
      acc5 = tl::dot(xd.load({0, k}), b, acc5);
      acc5 = tl::dot(xd8.load({0, k}), b, acc5);
    }
    tl::store(slice(5), acc5);

    // The row of y's blocks moves besides the index from the third iteration on, and a
    // descriptor made in the loop: those loads are not the claim's copies.
    tl::tile<float, M, N> acc6 = 0.0f;
    int column = 0;
    for (auto k : loop(0, n, K)) {
      if (k >= 2 * K) column = N / 2;
      auto made_here = tl::make_tensor_descriptor(x, {M, n}, {n, 1}, tl::block_shape<M, K>);
      acc6 = tl::dot(made_here.load({0, k}), yd.load({k, column}), acc6);
    }
    tl::store(slice(6), acc6);

    // A coordinate that is not the index itself.
    tl::tile<float, M, N> acc7 = 0.0f;
    for (auto k : loop(0, n, K)) acc7 = tl::dot(xd.load({0, k + 0}), yd.load({k, 0}), acc7);
    tl::store(slice(7), acc7);

    // A ring inside a range that holds a ring of the same blocks: the inner one loads plainly.
    tl::tile<float, M, N> acc8 = 0.0f;
    for (auto i : loop(0, 2 * K, K)) {
      auto a = xd.load({0, i});
      for (auto k : loop(0, n, K)) acc8 = tl::dot(xd.load({0, k}), yd.load({k, 0}), acc8);
      acc8 = tl::dot(a, yd.load({i, 0}), acc8);
    }
    tl::store(slice(8), acc8);

    // A range of one iteration, and one of none.
    tl::tile<float, M, N> acc9 = 0.0f;
    for (auto k : loop(K, 2 * K, K)) acc9 = tl::dot(xd.load({0, k}), yd.load({k, 0}), acc9);
    for (auto k : loop(0, 0, K)) acc9 = tl::dot(xd.load({0, k}), yd.load({k, 0}), acc9);
    tl::store(slice(9), acc9);
  }

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) const {
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step, tl::num_stages<Stages>); },
            x, y, z, n);
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step); }, x, y,
            z + pipelined_half, n);
  }
};

// The first computation alone, both ways: what tests/gpu/emulation_checks.cpp runs with the
// ring's planted bugs (cuda/ring.cuh, ring_mutation) to see its tests catch them.
template <class T, int Stages, int M, int N, int K, int Warps>
struct RingMatmul {
  using operand = T;
  static constexpr int num_warps = Warps;
  static constexpr int kdim = 5 * K + 8;
  static constexpr int tile = (M > N ? M : N) * kdim;
  static constexpr int pipelined_half = M * N;
  static constexpr int outputs = 2 * pipelined_half;

  template <class Loop>
  static TL_FN void compute(Loop loop, tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) {
    auto xd = tl::make_tensor_descriptor(x, {M, n}, {n, 1}, tl::block_shape<M, K>);
    auto yd = tl::make_tensor_descriptor(y, {n, N}, {N, 1}, tl::block_shape<K, N>);
    tl::tile<float, M, N> acc = 0.0f;
    for (auto k : loop(0, n, K)) {
      auto a = xd.load({0, k});
      auto b = yd.load({k, 0});
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + tl::arange<M>().col() * N + tl::arange<N>().row(), acc);
  }

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) const {
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step, tl::num_stages<Stages>); },
            x, y, z, n);
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step); }, x, y,
            z + pipelined_half, n);
  }
};

}  // namespace test_kernels
