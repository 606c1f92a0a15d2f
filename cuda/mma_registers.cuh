// tl::dot's A operand straight from registers, as FlashAttention-2 feeds p to p · v.
//
// The declared layout of a 2-D tile is the mma.sync accumulator layout (cuda/layout.cuh), and
// for 16-bit elements that layout, read two n8 tiles at a time, is already the A fragment of
// m16n8k16: lane 4g + q holds, of the n8 tile at columns k0..k0+7, c0 c1 = (g, k0 + 2q, +1) and
// c2 c3 = (g + 8, ...), and of the next one the same 8 columns further; the A fragment for the
// k-step at k0 wants a0 = (g, k0 + 2q..+1), a1 = (g + 8, ...), a2 and a3 the same at k0 + 8. So
// a0 = c0 c1 of the first tile packed low then high (what ldmatrix hands over from a row in
// shared memory), a1 = its c2 c3, a2 a3 those of the second. No shared memory, no barrier for a.
// The same four registers are wgmma's A operand from registers for the warp's 16 rows of its
// warpgroup's 64 (cuda/wgmma.cuh), which dot_mma takes where the accumulator is a warpgroup's.
//
// That holds when `a` (evaluated: a data tile, or the expression evaluated into the layout of
// its first data tile of full size) is in the accumulator layout of [M, K], each warp holds
// whole rows of it (its warps split M only, never K), and those rows are the rows of the
// warp's accumulator tiles of the product [M, N]: the flash-attention p · v, with p a softmax of
// q kᵀ (the accumulator of [B0, B1]), and q declared as a `tl::tile` before the loop. Anywhere
// else (warps splitting K, TF32, `a` loaded or evaluated in the blocked layout) dot_mma stages a
// through shared memory as before. Either way the same instruction (mma or wgmma) adds the same
// exact products, so the result is the same to the bit.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>

#include "cuda/layout.cuh"
#include "cuda/tile_storage.cuh"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// Whether a tile of Bytes-wide elements in layout LA over [M, K] (log2 LogM, LogK) gives its
// warp's A fragments in registers for a product whose accumulator is LC over [M, N]. Tiles is
// cuda/mma.cuh's mma_tiles (the accumulator's tiles in register order), passed in so that this
// header needs nothing from that one.
template <template <layouts::linear_layout, int> class Tiles, layouts::linear_layout LA,
          layouts::linear_layout LC, int LogM, int LogK, int LogN, int Bytes>
struct a_operand_in_registers {
  static constexpr bool accumulator =
      Bytes == 2 && LogK >= 4 && LA == layouts::mma_accumulator(LogM, LogK, LC.warp_bits);
  // For an accumulator-layout a (no early returns: nvcc warns of loops after one it can fold).
  static constexpr bool rows_match() {
    using TA = Tiles<LA, LogK>;
    using TC = Tiles<LC, LogN>;
    bool ok = true;
    // The warps: each one a row bit in both (the same one), or replicated in both; none along K
    // (nor along N, where a's would be along K).
    for (int w = 0; w < LA.warp_bits; ++w) {
      const int a_row = LA.warp[w] < 0 ? -1 : LA.warp[w] - LogK;
      const int c_row = LC.warp[w] < LogN ? -1 : LC.warp[w] - LogN;
      ok = ok && a_row == c_row && !(LA.warp[w] >= 0 && a_row < 0) && !(LC.warp[w] >= 0 && c_row < 0);
    }
    // A warp's n8 tiles of a cover all of K in order, and its m-tiles are the accumulator's.
    ok = ok && TA::nt * 8 == (1 << LogK) && TA::mt == TC::mt;
    for (int t = 0; t < TA::nt; ++t) ok = ok && TA::col(t) == 8 * t && TA::row(t) == 0;
    for (int m = 0; m < TA::mt; ++m) ok = ok && TA::row(m * TA::nt) == TC::row(m * TC::nt);
    return ok;
  }
  static constexpr bool check() {
    if constexpr (accumulator) return rows_match();
    else return false;
  }
  static constexpr bool value = check();
  static constexpr int n_tiles = value ? Tiles<LA, LogK>::nt : 1;
};

template <class T>
__device__ __forceinline__ std::uint32_t packed_halves(const T& low, const T& high) {
  std::uint16_t l, h;
  std::memcpy(&l, &low, 2);
  std::memcpy(&h, &high, 2);
  return static_cast<std::uint32_t>(l) | (static_cast<std::uint32_t>(h) << 16);
}

// The m16n8k16 A fragment of m-tile `m` (in the accumulator's register order) at k-step `k0`
// from `a`'s registers, NTiles n8 tiles per m-tile (In: a_operand_in_registers).
template <int NTiles, class Regs>
__device__ __forceinline__ void a_fragment_from_registers(std::uint32_t (&fa)[4], const Regs& a,
                                                          int m, int k0) {
  const int first = m * NTiles + k0 / 8;  // the n8 tile at columns k0..k0+7; the next at k0+8
  const auto* r = a.regs + 4 * first;
  fa[0] = packed_halves(r[0], r[1]);
  fa[1] = packed_halves(r[2], r[3]);
  fa[2] = packed_halves(r[4], r[5]);
  fa[3] = packed_halves(r[6], r[7]);
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
