// A matmul kernel for every operand precision tl::dot has, for the GPU parity test of dot
// (tests/gpu/dot_parity.cpp): z = x @ y for x [N0, MID] and y [MID, N1] of element type T, with
// T = float and Precision tl::ieee (exact, the FFMA lowering) or tl::tf32 (the tensor cores),
// or T = tl::float16 / tl::bfloat16 (the tensor cores). Every size may be ragged: the blocks at
// the edges are masked, their off lanes loaded as 0.
#pragma once

#include <type_traits>

#include "tile/tl.hpp"

namespace test_kernels {

template <class T, class Precision, int B0, int B1, int BK, int Warps>
struct MatmulPrecision {
  static constexpr int num_warps = Warps;
  static constexpr int block_rows = B0, block_cols = B1;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int N0,
                            int N1, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += BK) {
      auto ks = k + tl::arange<BK>();
      auto a = tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      if constexpr (std::is_same_v<Precision, tl::tf32_t>)
        acc = tl::dot(a, b, acc, tl::tf32);
      else
        acc = tl::dot(a, b, acc);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace test_kernels

namespace test_kernels {

// The same product with `a` declared as a tile, so that it lives in the declared layout of
// [B0, BK], the accumulator layout of mma.sync (cuda/layout.cuh): with 16-bit T and warps that
// split B0 only (B0 >= 16 * Warps) the tensor-core lowering reads a's fragments straight from its
// registers (cuda/mma_registers.cuh), elsewhere it stages a through shared memory. ThroughFloat:
// a is a float tile cast to T inside the dot, as flash attention's tl::cast<T>(p) is.
template <class T, int B0, int B1, int BK, int Warps, bool ThroughFloat>
struct MatmulDeclaredA {
  static constexpr int num_warps = Warps;
  static constexpr int block_rows = B0, block_cols = B1;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int N0,
                            int N1, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += BK) {
      auto ks = k + tl::arange<BK>();
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      auto a_at = x + rows.col() * MID + ks.row();
      auto a_mask = (rows < N0).col() & (ks < MID).row();
      if constexpr (ThroughFloat) {
        tl::tile<float, B0, BK> a = tl::cast<float>(tl::load(a_at, a_mask, 0.0f));
        acc = tl::dot(tl::cast<T>(a), b, acc);
      } else {
        tl::tile<T, B0, BK> a = tl::load(a_at, a_mask, 0.0f);
        acc = tl::dot(a, b, acc);
      }
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace test_kernels

namespace test_kernels {

// Two products per iteration of a pipelined loop whose a operands both come from registers, as
// flash attention's q kᵀ and p v: q (x's first BK columns) declared before the loop, p computed
// from q's product inside it. z = sum over the k-blocks of q y_k, to which p's product adds exact
// zeros (an exact sum with multiples of 1/64): what it checks is that q's fragments survive the
// loop, which ptxas (nvcc 13.0) broke by giving their registers to p's where wgmma reads them
// from registers (bench/HISTORY.md, 2026-11-27; cuda/wgmma.cuh's wgmma_steps).
template <class T, int B0, int BK, int Warps, int Stages>
struct LoopInvariantA {
  static constexpr int num_warps = Warps;
  static constexpr int block_rows = B0, block_cols = BK;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int N0,
                            int N1, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * BK + tl::arange<BK>();
    auto first = tl::arange<BK>();
    tl::tile<T, B0, BK> q =
        tl::load(x + rows.col() * MID + first.row(), (rows < N0).col() & (first < MID).row(), 0.0f);
    tl::tile<float, B0, BK> acc = 0.0f;
    tl::tile<float, B0, BK> zeros = 0.0f;
    for (auto k : tl::range(0, MID, BK, tl::num_stages<Stages>)) {
      auto ks = k + tl::arange<BK>();
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      auto s = tl::dot(q, b);
      acc = acc + s;
      zeros = tl::dot(tl::cast<T>(s * 0.0f), b, zeros);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc + zeros, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace test_kernels

namespace test_kernels {

// z = x @ y for int8 or uint8 x and y, into an int32 z: the integer dot (exact in int32 on both
// backends, the GPU's integer multiply-adds in the accumulator's layout).
template <class T, int B0, int B1, int BK, int Warps>
struct MatmulInteger {
  static constexpr int num_warps = Warps;
  static constexpr int block_rows = B0, block_cols = B1;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<int> z, int N0,
                            int N1, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<int, B0, B1> acc = 0;
    for (int k = 0; k < MID; k += BK) {
      auto ks = k + tl::arange<BK>();
      auto a = tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0);
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0);
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace test_kernels
