// Loads in a pipelined tl::range, for the GPU tests: the same computations in a
// `tl::range(..., tl::num_stages<Stages>)` and in a plain `for (int ...)`, each into its own half
// of z, which the test compares bit for bit (and with the simulator). The loads cover what the
// lowering (cuda/pipeline.cuh) must get right: 2-D operands of a dot with a ragged last block,
// two loads of one type in one body, a load that does not depend on the index, a scalar and a
// base pointer that change in the loop besides the index, a negative step, a pipelined range
// inside another with a load of the same type, and a load inside an `if` that some iterations
// after the first skip.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

template <int Stages, int B, int Warps>
struct Pipelined {
  static constexpr int num_warps = Warps;
  static constexpr int tile = 64 * B;  // x and y
  static constexpr int computations = 8;
  static constexpr int pipelined_half = computations * B * B;  // z: the pipelined half, then the plain one
  static constexpr int outputs = 2 * pipelined_half;

  template <class Loop>
  static TL_FN void compute(Loop loop, tl::ptr<const float> x, tl::ptr<const float> y,
                            tl::ptr<float> z, int n) {
    auto ar = tl::arange<B>();
    auto whole = [](auto t) { return tl::cast<float>(tl::cast<int>(t * 8.0f)); };
    const int K = n / B - 3;  // a ragged last block of 16
    auto slice = [&](int s) { return z + s * B * B; };

    // The operands of a dot, as in matmul.
    tl::tile<float, B, B> acc = 0.0f;
    for (auto k : loop(0, K, 16)) {
      auto ks = k + tl::arange<16>();
      auto a = tl::load(x + ar.col() * K + ks.row(), (ks < K).row(), 0.0f);
      auto b = tl::load(y + ks.col() * B + ar.row(), (ks < K).col(), 0.0f);
      acc = tl::dot(whole(a), whole(b), acc);
    }
    tl::store(slice(0) + ar.col() * B + ar.row(), acc);

    // Two loads of one type (x and y differ only in value), and one without the index.
    const int limit = n - 5;
    tl::tile<float, B> s1 = 0.0f;
    for (auto k : loop(0, limit, B)) {
      s1 += tl::load(x + k + ar, k + ar < limit, 0.0f) + tl::load(y + k + ar, k + ar < limit, 1.0f);
      s1 += tl::load(y + ar + 3);
    }
    tl::store(slice(1) + ar, s1);

    // A scalar that changes with the iteration besides the index, and a base pointer that moves.
    tl::tile<float, B> s2 = 0.0f, s3 = 0.0f;
    auto moving = y;
    for (auto k : loop(0, limit - 2 * B, B)) {
      int shift = (k / B) % 3;
      s2 += tl::load(x + (k + ar) + shift);
      s3 += tl::load(moving + k + ar, k + ar < limit - 80, -2.0f);
      moving = moving + 1;
    }
    tl::store(slice(2) + ar, s2);
    tl::store(slice(3) + ar, s3);

    // A negative step.
    tl::tile<float, B> s4 = 0.0f;
    for (auto k : loop(limit - 1, -B, -B)) s4 = s4 * 0.5f + tl::load(x + k + ar, (k + ar >= 0) & (k + ar < n), 0.0f);
    tl::store(slice(4) + ar, s4);

    // A pipelined range inside another, both with a load of one type.
    tl::tile<float, B> s5 = 0.0f, s6 = 0.0f;
    for (auto k : loop(0, 6 * B, B)) {
      s5 += tl::load(x + k + ar);
      for (auto j : loop(2 * B, 5 * B, B)) s6 = s6 * 0.25f + tl::load(x + j + ar) + tl::cast<float>(ar * 0 + k);
      s5 += tl::load(y + k + ar);
    }
    tl::store(slice(5) + ar, s5);
    tl::store(slice(6) + ar, s6);

    // A load that every third iteration skips, from the second on (its copies ahead missed).
    tl::tile<float, B> s7 = 0.0f;
    for (auto k : loop(0, 8 * B, B))
      if ((k / B) % 3 != 1) s7 = s7 * 0.5f + tl::load(x + k + ar, k + ar < n, 0.0f);
    tl::store(slice(7) + ar, s7);
  }

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step, tl::num_stages<Stages>); },
            x, y, z, n);
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step); }, x, y, z + pipelined_half, n);
  }
};

}  // namespace test_kernels

namespace test_kernels {

// tl::dot of float16 or bfloat16 operands loaded in a pipelined range, whose loads the GPU copies
// straight into dot's swizzled shared memory (cuda/operand_stages.cuh), against the same loop
// unpipelined, bit for bit (the operands are whole numbers, so every sum is exact). What the copy
// must get right: a ragged last block (whole 16-byte chunks off), a mask that cuts chunks and an
// `other` that is not zero, a base pointer off the 16-byte grid (no chunk can be one cp.async),
// the loaded tile used besides the dot (its registers), a copy of it (which dot stages itself),
// operands loaded in an `if` that some iterations skip, two loads of one type in one iteration
// (the second loaded plainly, and loaded again by its dot: cuda/tile_storage.cuh), and b as
// tl::trans of a tile loaded as [N, K] (read from its slot as the rows of b^T).
template <class T, int Stages, int M, int N, int K, int Warps>
struct PipelinedHalfDot {
  using operand = T;
  static constexpr int num_warps = Warps;
  static constexpr int kdim = 4 * K + 8;  // x: [M, kdim] (+ 1), y: [kdim, N]
  static constexpr int tile = (M > N ? M : N) * kdim + 8;
  static constexpr int computations = 8;
  static constexpr int pipelined_half = computations * M * N;
  static constexpr int outputs = 2 * pipelined_half;
  static_assert(K <= N, "the tile of maxima is stored in an [M, N] slice");

  template <class Loop>
  static TL_FN void compute(Loop loop, tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int n) {
    auto rows = tl::arange<M>();
    auto cols = tl::arange<N>();
    auto slice = [&](int s) { return z + s * M * N + rows.col() * N + cols.row(); };

    // The operands of a matmul with a ragged last block.
    tl::tile<float, M, N> acc = 0.0f;
    for (auto k : loop(0, n, K)) {
      auto ks = k + tl::arange<K>();
      auto a = tl::load(x + rows.col() * n + ks.row(), (ks < n).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f);
      acc = tl::dot(a, b, acc);
    }
    tl::store(slice(0), acc);

    // A mask that cuts 16-byte chunks, `other` not zero, and the tile's registers used too.
    tl::tile<float, M, N> acc2 = 0.0f;
    tl::tile<float, M, K> highest = -1000.0f;
    for (auto k : loop(0, n, K)) {
      auto ks = k + tl::arange<K>();
      auto a = tl::load(x + rows.col() * n + ks.row(), (ks < n - 3).row() & (rows < M - 5).col(), 2.0f);
      auto b = tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f);
      acc2 = tl::dot(a, b, acc2);
      highest = tl::maximum(highest, tl::cast<float>(a));
    }
    tl::store(slice(1), acc2);
    tl::store(z + 2 * M * N + rows.col() * N + tl::arange<K>().row(), highest);

    // A base pointer one element off the 16-byte grid, and a copy of the tile as the operand.
    tl::tile<float, M, N> acc3 = 0.0f, acc4 = 0.0f;
    auto shifted = x + 1;
    for (auto k : loop(0, n, K)) {
      auto ks = k + tl::arange<K>();
      auto a = tl::load(shifted + rows.col() * n + ks.row(), (ks < n).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f);
      acc3 = tl::dot(a, b, acc3);
      auto copied = b;
      acc4 = tl::dot(a, copied, acc4);
    }
    tl::store(slice(3), acc3);
    tl::store(slice(4), acc4);

    // Operands loaded in an `if` that every third iteration skips, from the second on: the copies
    // ahead that the skipped iteration would have issued never were (loaded plainly from then on).
    tl::tile<float, M, N> acc5 = 0.0f;
    for (auto k : loop(0, n, K)) {
      if ((k / K) % 3 != 1) {
        auto ks = k + tl::arange<K>();
        auto a = tl::load(x + rows.col() * n + ks.row(), (ks < n).row(), 0.0f);
        auto b = tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f);
        acc5 = tl::dot(a, b, acc5);
      }
    }
    tl::store(slice(5), acc5);

    // Two loads of one type in one iteration, both live until their dots: the second site shares
    // the first's buffer, so it loads plainly, and its dot loads it again where it stages it.
    tl::tile<float, M, N> acc6 = 0.0f;
    auto further = x + 8;
    const int further_n = n - 8;
    for (auto k : loop(0, n, K)) {
      auto ks = k + tl::arange<K>();
      auto a = tl::load(x + rows.col() * n + ks.row(), (ks < n).row(), 0.0f);
      auto a_further = tl::load(further + rows.col() * n + ks.row(), (ks < further_n).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N + cols.row(), (ks < n).col(), 0.0f);
      acc6 = tl::dot(a, b, acc6);
      acc6 = tl::dot(a_further, b, acc6);
    }
    tl::store(slice(6), acc6);

    // b as tl::trans of a tile loaded as [N, K] (flash attention's k as it lies): the transposed
    // tile keeps the load's slot, and dot reads it there as the rows of b^T.
    tl::tile<float, M, N> acc7 = 0.0f;
    for (auto k : loop(0, n, K)) {
      auto ks = k + tl::arange<K>();
      auto a = tl::load(x + rows.col() * n + ks.row(), (ks < n).row(), 0.0f);
      // (The mask's second term, always on, makes this load's type differ from a's where M == N:
      // a second load of one type in an iteration would load plainly.)
      auto b_rows = tl::load(x + cols.col() * n + ks.row(), (ks < n).row() & (cols < N).col(), 0.0f);
      acc7 = tl::dot(a, tl::trans(b_rows), acc7);
      // The same load again: its site loads plainly, and dot loads it once more to stage it.
      auto b_rows_again = tl::load(x + cols.col() * n + ks.row(), (ks < n).row() & (cols < N).col(), 0.0f);
      acc7 = tl::dot(a, tl::trans(b_rows_again), acc7);
    }
    tl::store(slice(7), acc7);
  }

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) const {
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step, tl::num_stages<Stages>); },
            x, y, z, n);
    compute([](int lo, int hi, int step) { return tl::range(lo, hi, step); }, x, y,
            z + pipelined_half, n);
  }
};

}  // namespace test_kernels
