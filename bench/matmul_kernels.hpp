// The matmul solution's loop (puzzle 14) with the operands' type, the dot's input precision, the
// loop's stages and the warps as parameters, for `tilepuzzles bench matmul`
// (bench/gpu_bench_matmul.cu, and bench/gpu_bench_matmul_w8.cu for 8 warps: tl is built for one
// warp count per translation unit).
#pragma once

#include "tile/tl.hpp"

namespace tp::bench_gpu {

// Internal to each unit: the same names mean another warp count (tl's inline namespace) in another.
namespace {

// The matmul solution's loop with the operands' type and the dot's input precision as parameters
// (the solution itself is exact fp32).
template <class T, class Precision, int B0, int B1, int B_MID>
struct MatmulAs {
  static constexpr int num_warps = 4;


  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += B_MID) {
      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(a, b, acc, Precision{});
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

// The same with the next step's operands loaded before this step's dot, by hand: their loads are
// in flight while the dot stages and multiplies the current ones.
template <class T, class Precision, int B0, int B1, int B_MID>
struct MatmulPrefetch {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto load_a = [&](int k) {
      auto ks = k + tl::arange<B_MID>();
      return tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
    };
    auto load_b = [&](int k) {
      auto ks = k + tl::arange<B_MID>();
      return tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
    };
    tl::tile<float, B0, B1> acc = 0.0f;
    auto a = load_a(0);
    auto b = load_b(0);
    for (int k = 0; k < MID; k += B_MID) {
      auto next_a = load_a(k + B_MID);  // masked off past the end
      auto next_b = load_b(k + B_MID);
      acc = tl::dot(a, b, acc, Precision{});
      a = next_a;
      b = next_b;
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

// MatmulAs with Warps warps.
template <class T, class Precision, int B0, int B1, int B_MID, int Warps = 8>
struct MatmulAs8 : MatmulAs<T, Precision, B0, B1, B_MID> {
  static constexpr int num_warps = Warps;
};

// The loop as a pipelined range, as Triton's tutorial writes it (`tl.range(..., num_stages=S)`):
// the 16-bit operands' loads go straight into dot's shared memory, Stages - 1 steps ahead
// (cuda/operand_stages.cuh). MinBlocks of them on one multiprocessor at once where it is not 0
// (min_blocks_per_multiprocessor, docs/tl.md).
template <int MinBlocks>
struct blocks_per_multiprocessor {
  static constexpr int min_blocks_per_multiprocessor = MinBlocks;
};
template <>
struct blocks_per_multiprocessor<0> {};

template <class T, class Precision, int B0, int B1, int B_MID, int Stages, int Warps = 4, int MinBlocks = 0>
struct MatmulStaged : blocks_per_multiprocessor<MinBlocks> {
  static constexpr int num_warps = Warps;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (auto k : tl::range(0, MID, B_MID, tl::num_stages<Stages>)) {
      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(a, b, acc, Precision{});
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace

}  // namespace tp::bench_gpu
