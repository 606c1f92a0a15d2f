// tl::dot on the tensor cores: mma.sync, with the operands staged through swizzled shared memory.
//
//   tl::dot(a, b, acc, tl::tf32)   float32 operands rounded to TF32 (cvt.rna.tf32.f32):
//                                  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//   tl::dot(a, b, acc)             float16 or bfloat16 operands:
//                                  mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
//
// The result is computed where it lives, as in the FFMA lowering (cuda/dot.cuh): the declared
// layout of [M, N] is the mma.sync accumulator layout (cuda/layout.cuh), so register 4t + i of a
// thread is element c_i of the t-th m16n8 tile its warp owns (c0 c1: row g, columns 2q and 2q + 1;
// c2 c3: row g + 8; g = lane / 4, q = lane % 4), and every mma adds into those registers in
// place: `acc` never converts. The tiles of one warp: its m16 rows and n8 columns come from its
// lane and warp bits, the repetitions from the register bits above the first two (along N first,
// then M), so the A fragment of an m-tile is loaded once per k step and used for every n-tile.
//
// Staging. Each operand is written once to shared memory (the first copy of each element, by the
// thread that holds it), rows of 16-byte chunks with the chunk index XORed with bits of the row
// (`swizzled` below), then read back as fragments with ldmatrix: 8 lanes give the addresses of
// 8 rows of one 16-byte chunk each, and the swizzle puts those 8 chunks in 8 different groups of
// 4 banks, so no read conflicts. a is stored [M, K] (its rows are the fragments' rows). b is
// stored either as it is, [K, N], and read with ldmatrix.trans (16-bit operands in a layout that
// holds consecutive n in a thread: a tile loaded as [K, N]), or as the rows of its transpose,
// [N, K], and read with plain ldmatrix, since the B fragment is "col" major: b0 b1 = (k = 2q,
// 2q + 1; n = g) is word q of row g of b^T. The rows are used for TF32 (whose fragment, k = q,
// n = g, then reads like a's; the 32-bit words go through ldmatrix's b16 path as pairs, which
// hands lane 4g + q word q of row g, exactly the tf32 fragment) and for a b whose layout holds
// consecutive k in a thread: `tl::trans(x)` of an [N, K] tile x loaded with K contiguous (flash
// attention's kᵀ), whose registers are x's (tl::trans moves no data, cuda/layout.cuh), so it is
// stored as x's 16-byte chunks, as loaded.
//
// An operand a pipelined range's load already copied into those rows (cuda/operand_stages.cuh)
// is read where it is: a staged a, or b, as it is, and b = tl::trans(x) of a staged [N, K] tile
// x (flash attention's k as it lies) as the rows of b^T, which x's rows are.
//
// Barriers as in cuda/dot.cuh: the operands and `acc` are evaluated first (they may convert
// through shared memory of the same size), then one barrier before the buffer is written (its
// earlier readers are done) and one after.
//
// Built for sm_90a, a 16-bit dot whose accumulator is a warpgroup's (cuda/wgmma.cuh: wgmma_fits)
// is computed by wgmma instead, from the same staged (or pipelined) tiles: after the staging below,
// dot_mma hands them to wgmma_steps in place of the ldmatrix and mma.sync loop.
//
// In the host emulation (cuda/host_emulation.hpp) ldmatrix and mma.sync are computed from
// shuffles with the same register contracts (the row addresses travel between lanes, the
// fragments too), and cvt.rna.tf32.f32 is tl::round_to_tf32: the staging, the swizzle and the
// fragment bookkeeping run in CI; the instructions themselves only on a GPU.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/layout.cuh"
#include "cuda/memory.cuh"
#include "cuda/mma_registers.cuh"
#include "cuda/reduce.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/wgmma.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/dtypes.hpp"
#include "tile/expr.hpp"
#include "tile/precision.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// ---------------------------------------------------------------------------------------------
// Shared memory in rows of 16-byte chunks, the chunk index XORed with row bits: any 8
// consecutive rows (starting at a multiple of 8) at one chunk column land in 8 different groups
// of 4 banks, which is what ldmatrix reads.
//
// 16-bit operands (float16, bfloat16) are laid out as Hopper's wgmma reads a swizzled operand
// from shared memory (cuda/wgmma.cuh), so that one layout serves ldmatrix, wgmma and the pipelined
// copies: rows of W = min(2 * Cols, 128) bytes (32, 64 or 128), a tile wider than 64 elements cut
// into panels of 64 columns stored one after the other ([panel][row][chunk]), and chunk c of row r
// stored at c ^ ((r * W / 128) % (W / 16)): the 16-byte chunk bits of the byte address XORed with
// the bits above 128 bytes, which is the swizzle the hardware applies to addresses (32-, 64- and
// 128-byte modes) once the buffer is aligned to 8 rows. A quarter-warp that stores two rows of
// four chunks (a loaded tile's blocked layout at 64 columns or more) meets two-way bank
// conflicts; ldmatrix's eight rows and the pipelined copies' whole rows meet none.
//
// 32-bit words (TF32) keep their own permutation: with 8 or more chunks per row, rows r and r + 1
// (r even) get XOR masks that differ in bit 2, so the 16-byte stores of a quarter-warp (two rows
// of four chunks) fill 8 groups too, and rows 8 apart differ in bit 2 as well (TF32's b^T is
// written 4 rows at a time, 4 and 8 apart). With fewer chunks, 8 / chunks consecutive rows
// already fill the 8 groups between them, and the higher row bits permute the chunks.
template <int Rows, int Cols, int ElemBytes>
struct swizzled {
  static constexpr int per_chunk = 16 / ElemBytes;  // elements per 16-byte chunk
  static constexpr int chunks = Cols / per_chunk;   // chunks per row
  static_assert(chunks >= 2 && (chunks & (chunks - 1)) == 0,
                "tl (GPU backend): internal error: a swizzled row of fewer than 32 bytes");
  static constexpr int row_shift = chunks >= 8 ? 0 : layouts::log2_exact(8 / chunks);
  static constexpr int xor_mask = (chunks >= 8 ? 8 : chunks) - 1;
  static constexpr int elements = Rows * Cols;

  __device__ __forceinline__ static int mask_of(int row) {
    if constexpr (chunks >= 8)  // row bits 0, 1, 2 as mask bits 2, 0, 1; row bit 3 into bit 2
      return (((row & 1) << 2) | ((row >> 1) & 3)) ^ ((row >> 1) & 4);
    else
      return (row >> row_shift) & xor_mask;
  }
  // The chunk (in 16-byte units from the start) that holds chunk `chunk` of row `row`.
  __device__ __forceinline__ static int chunk_at(int row, int chunk) {
    return row * chunks + (chunk ^ mask_of(row));
  }
  // The element index of (row, col).
  __device__ __forceinline__ static int at(int row, int col) {
    return chunk_at(row, col / per_chunk) * per_chunk + (col & (per_chunk - 1));
  }
};

template <int Rows, int Cols>
struct swizzled<Rows, Cols, 2> {
  static constexpr int per_chunk = 8;
  static constexpr int chunks = Cols / per_chunk;  // chunks per row of the tile
  static_assert(chunks >= 2 && (chunks & (chunks - 1)) == 0 && Rows % 8 == 0,
                "tl (GPU backend): internal error: a swizzled 16-bit tile of rows under 32 bytes");
  static constexpr int row_chunks = chunks < 8 ? chunks : 8;  // chunks per stored row
  static constexpr int row_bytes = 16 * row_chunks;           // 32, 64 or 128: the swizzle mode
  static constexpr int per_row = 8 * row_chunks;              // elements per stored row
  static constexpr int panel_bytes = Rows * row_bytes;
  static constexpr int row_shift = layouts::log2_exact(8 / row_chunks);
  static constexpr int elements = Rows * Cols;
  static constexpr int period_rows = 8;            // rows after which the swizzle repeats
  static constexpr int alignment = period_rows * row_bytes;  // the swizzle's period in bytes

  __device__ __forceinline__ static int mask_of(int row) { return (row >> row_shift) & (row_chunks - 1); }
  __device__ __forceinline__ static int chunk_at(int row, int chunk) {
    const int panel = chunk / row_chunks, within = chunk & (row_chunks - 1);
    return (panel * Rows + row) * row_chunks + (within ^ mask_of(row));
  }
  __device__ __forceinline__ static int at(int row, int col) {
    return chunk_at(row, col / per_chunk) * per_chunk + (col & (per_chunk - 1));
  }
  // The byte offset of (row, col) before the swizzle, for row a multiple of 8 and col of 8: where
  // a wgmma descriptor starts (the hardware swizzles what it addresses from there).
  static constexpr int unswizzled_bytes(int row, int col) {
    return (col / per_row) * panel_bytes + row * row_bytes + (col % per_row) * 2;
  }
};

// ---------------------------------------------------------------------------------------------
// The instructions (or their emulation).

__device__ __forceinline__ std::uint32_t tf32_bits(float x) {
#if defined(TL_EMULATED_GPU)
  float r = round_to_tf32(x);
  std::uint32_t bits;
  std::memcpy(&bits, &r, 4);
  return bits;
#else
  std::uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return bits;
#endif
}

template <class T>
__device__ __forceinline__ std::uint16_t half_bits(const T& x) {
  static_assert(sizeof(T) == 2, "tl (GPU backend): internal error: a 16-bit operand is not 2 bytes");
  std::uint16_t bits;
  std::memcpy(&bits, &x, 2);
  return bits;
}

#if defined(TL_EMULATED_GPU)
namespace emulated {
inline float from_fp16(std::uint32_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp == 0) {
    float f = static_cast<float>(man) * 0x1p-24f;  // subnormal (or zero): exact in float
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  } else {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}
inline float from_bf16(std::uint32_t h) {
  const std::uint32_t bits = h << 16;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}
inline float from_word(std::uint32_t w) {
  float out;
  std::memcpy(&out, &w, 4);
  return out;
}
}  // namespace emulated
#endif

// ldmatrix: lane l gives the address of row l % 8 of matrix l / 8 (16 bytes each); lane 4g + q
// receives, from each matrix j, the 32-bit word q of row g (with .trans: the 16-bit elements
// (2q, g) and (2q + 1, g), packed low then high).
template <int Matrices, bool Trans>
__device__ __forceinline__ void ldmatrix(std::uint32_t (&r)[Matrices], const void* row_address) {
#if defined(TL_EMULATED_GPU)
  const int lane = lane_id(), g = lane >> 2, q = lane & 3;
  for (int j = 0; j < Matrices; ++j) {
    if constexpr (!Trans) {
      const auto* row = static_cast<const std::uint32_t*>(__shfl_sync(~0u, row_address, 8 * j + g));
      r[j] = row[q];
    } else {
      const auto* lo = static_cast<const std::uint16_t*>(__shfl_sync(~0u, row_address, 8 * j + 2 * q));
      const auto* hi = static_cast<const std::uint16_t*>(__shfl_sync(~0u, row_address, 8 * j + 2 * q + 1));
      r[j] = static_cast<std::uint32_t>(lo[g]) | (static_cast<std::uint32_t>(hi[g]) << 16);
    }
  }
#else
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(row_address));
  if constexpr (Matrices == 4 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
  else if constexpr (Matrices == 4 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
  else if constexpr (Matrices == 2 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1]) : "r"(address));
#endif
}

// The operand kinds of mma.sync this header issues.
enum class mma_kind { tf32, f16, bf16 };

// d += a @ b for one m16n8 tile: m16n8k8 for tf32, m16n8k16 for f16 and bf16. Fragments (g =
// lane / 4, q = lane % 4): tf32 a0 (g, q), a1 (g + 8, q), a2 (g, q + 4), a3 (g + 8, q + 4);
// b0 (k = q, n = g), b1 (k = q + 4, n = g). 16-bit: a0 (g, 2q..2q+1), a1 (g + 8, ...),
// a2 (g, 2q+8..2q+9), a3 (g + 8, ...); b0 (k = 2q..2q+1, n = g), b1 (k = 2q+8..2q+9, n = g).
// d0 d1 (g, 2q..2q+1), d2 d3 (g + 8, ...).
template <mma_kind Kind>
__device__ __forceinline__ void mma(float& d0, float& d1, float& d2, float& d3,
                                    const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(TL_EMULATED_GPU)
  // Gathers the fragments by shuffles; each result adds its products in order of k, multiply
  // then add, as the simulator does.
  const int lane = lane_id(), g = lane >> 2, q = lane & 3;
  float* d[4] = {&d0, &d1, &d2, &d3};
  if constexpr (Kind == mma_kind::tf32) {
    for (int k = 0; k < 8; ++k) {
      const int reg = k < 4 ? 0 : 2, kq = k & 3;
      const float a_top = emulated::from_word(__shfl_sync(~0u, a[reg], 4 * g + kq));
      const float a_bottom = emulated::from_word(__shfl_sync(~0u, a[reg + 1], 4 * g + kq));
      const float b_left = emulated::from_word(__shfl_sync(~0u, b[reg / 2], 4 * (2 * q) + kq));
      const float b_right = emulated::from_word(__shfl_sync(~0u, b[reg / 2], 4 * (2 * q + 1) + kq));
      *d[0] = *d[0] + a_top * b_left;
      *d[1] = *d[1] + a_top * b_right;
      *d[2] = *d[2] + a_bottom * b_left;
      *d[3] = *d[3] + a_bottom * b_right;
    }
  } else {
    auto value = [](std::uint32_t word, int half) {
      const std::uint32_t h = half ? word >> 16 : word & 0xffffu;
      return Kind == mma_kind::f16 ? emulated::from_fp16(h) : emulated::from_bf16(h);
    };
    for (int k = 0; k < 16; ++k) {
      const int reg = k < 8 ? 0 : 2, kq = (k & 7) >> 1, half = k & 1;
      const float a_top = value(__shfl_sync(~0u, a[reg], 4 * g + kq), half);
      const float a_bottom = value(__shfl_sync(~0u, a[reg + 1], 4 * g + kq), half);
      const float b_left = value(__shfl_sync(~0u, b[reg / 2], 4 * (2 * q) + kq), half);
      const float b_right = value(__shfl_sync(~0u, b[reg / 2], 4 * (2 * q + 1) + kq), half);
      *d[0] = *d[0] + a_top * b_left;
      *d[1] = *d[1] + a_top * b_right;
      *d[2] = *d[2] + a_bottom * b_left;
      *d[3] = *d[3] + a_bottom * b_right;
    }
  }
#else
  if constexpr (Kind == mma_kind::tf32)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if constexpr (Kind == mma_kind::f16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// ---------------------------------------------------------------------------------------------
// The tiles of the accumulator layout L ([M, N]) one warp owns: register 4t + i is c_i of tile t;
// t counts the n-tiles first (NT of them), then the m-tiles (MT).
template <layouts::linear_layout L, int LogN>
struct mma_tiles {
  static constexpr int tiles = (1 << L.reg_bits) / 4;
  static constexpr int row(int t) { return static_cast<int>(L.register_bits_of(4 * t) >> LogN); }
  static constexpr int col(int t) {
    return static_cast<int>(L.register_bits_of(4 * t) & ((1LL << LogN) - 1));
  }
  static constexpr int count_n() {
    int n = 1;
    while (n < tiles && row(n) == 0) n *= 2;
    return n;
  }
  static constexpr int nt = count_n(), mt = tiles / nt;
  static constexpr bool valid() {
    if (L.reg_bits < 2 || L.reg[0] != 0 || L.reg[1] != LogN + 3) return false;
    for (int t = 0; t < tiles; ++t)
      if (row(t) != row((t / nt) * nt) || col(t) != col(t % nt)) return false;
    return true;
  }
};

// Writes the first copy of each element of `tile` (layout L over [Rows, Cols]) to `buffer` as
// Stored words, through `convert`, at Swz's position of (row, col). Consecutive elements a thread
// holds along Cols go as one vector where they can.
template <class Swz, class Stored, class L, class T, class S, class F>
__device__ __forceinline__ void stage(Stored* buffer, const registers<T, S, L>& tile, F&& convert) {
  if (!holds_first_copy<L>()) return;
  constexpr int log_cols = layouts::log2_exact(S::dim(1));
  const int base = thread_flat<L>();
  constexpr int V = 1 << vector_bits<Stored, L>();
  static_for<L::registers / V>([&](auto group) {
    constexpr int first = decltype(group)::value * V;
    const int flat = flat_of<L, first>(base);
    const int row = flat >> log_cols, col = flat & (S::dim(1) - 1);
    if constexpr (V == 1) {
      buffer[Swz::at(row, col)] = convert(tile.regs[first]);
    } else {
      vector<Stored, V> v;
      static_for<V>([&](auto i) { v.v[i] = convert(tile.regs[first + decltype(i)::value]); });
      *reinterpret_cast<vector<Stored, V>*>(buffer + Swz::at(row, col)) = v;
    }
  });
}

// The registers of a [Rows, Cols] tile seen as its transpose, [Cols, Rows]: the same values, the
// layout's bits relabelled (no data moves; the copy is the compiler's to drop).
template <class T, class S, class L>
__device__ __forceinline__ auto transposed_view(const registers<T, S, L>& x) {
  using ST = shape<S::dim(1), S::dim(0)>;
  registers<T, ST, layouts::layout<transposed_layout<S>(L::value)>> t;
  static_for<L::registers>([&](auto k) { t.regs[decltype(k)::value] = x.regs[decltype(k)::value]; });
  return t;
}

template <class T>
constexpr mma_kind kind_of() {
  if constexpr (std::is_same_v<T, float>) return mma_kind::tf32;
  else if constexpr (std::is_same_v<T, bfloat16>) return mma_kind::bf16;
  else return mma_kind::f16;
}

// The fragments of one k step (k0) from the swizzled operands, as the mma tiles of one warp read
// them (row0, col0: the warp's first row and column of the accumulator). Separate, so that a
// lowering that holds an operand in registers already (flash attention's p) replaces one of them.
template <class Tiles, class SwzA, class Stored>
__device__ __forceinline__ void fetch_a_fragments(std::uint32_t (&fa)[Tiles::mt][4], const Stored* as,
                                                  int row0, int k0) {
  // Matrices (rows 0-7, chunk 0), (rows 8-15, chunk 0), (0-7, 1), (8-15, 1) of each m-tile.
  const int lane = lane_id();
  static_for<Tiles::mt>([&](auto m) {
    constexpr int t = decltype(m)::value * Tiles::nt;
    const int row = row0 + Tiles::row(t) + (lane & 7) + ((lane >> 3) & 1) * 8;
    const int chunk = k0 / SwzA::per_chunk + (lane >> 4);
    ldmatrix<4, false>(fa[decltype(m)::value], as + SwzA::chunk_at(row, chunk) * SwzA::per_chunk);
  });
}

template <class SwzB, bool Rows, class Stored>
__device__ __forceinline__ void fetch_b_fragment(std::uint32_t (&fb)[2], const Stored* bs, int col,
                                                 int k0) {
  const int lane = lane_id();
  if constexpr (Rows) {
    // b^T's rows are b's columns: matrices (n 0-7, k chunk 0) and (n 0-7, k chunk 1).
    const int row = col + (lane & 7);
    const int chunk = k0 / SwzB::per_chunk + ((lane >> 3) & 1);
    ldmatrix<2, false>(fb, bs + SwzB::chunk_at(row, chunk) * SwzB::per_chunk);
  } else {
    // b's rows k0..k0+7 and k0+8..k0+15 at this n-tile's chunk, transposed.
    const int row = k0 + (lane & 15);
    const int chunk = col / SwzB::per_chunk;
    ldmatrix<2, true>(fb, bs + SwzB::chunk_at(row, chunk) * SwzB::per_chunk);
  }
}

// The B fragments of two n-tiles (columns col_first and col_second) with one ldmatrix.x4: lanes
// 0-15 address the first tile's two matrices, lanes 16-31 the second's, in fetch_b_fragment's
// order, so r0 r1 are the first fragment and r2 r3 the second. Half the ldmatrix instructions and
// address computations of one fetch per tile.
template <class SwzB, bool Transposed, class Stored>
__device__ __forceinline__ void fetch_b_fragment_pair(std::uint32_t (&first)[2], std::uint32_t (&second)[2],
                                                      const Stored* bs, int col_first, int col_second, int k0) {
  const int lane = lane_id();
  const int col = (lane & 16) ? col_second : col_first;
  std::uint32_t r[4];
  if constexpr (Transposed) {
    const int row = col + (lane & 7);
    const int chunk = k0 / SwzB::per_chunk + ((lane >> 3) & 1);
    ldmatrix<4, false>(r, bs + SwzB::chunk_at(row, chunk) * SwzB::per_chunk);
  } else {
    const int row = k0 + (lane & 15);
    const int chunk = col / SwzB::per_chunk;
    ldmatrix<4, true>(r, bs + SwzB::chunk_at(row, chunk) * SwzB::per_chunk);
  }
  first[0] = r[0];
  first[1] = r[1];
  second[0] = r[2];
  second[1] = r[3];
}

// The swizzled copy of an operand that a pipelined range's load left in shared memory
// (cuda/operand_stages.cuh), or nullptr: a staged tile's pointer, present only on the tile the
// load initialized (cuda/tile_storage.cuh). Its rows are those of the operand as it is ([M, K]
// for a, [K, N] for b), which is how dot stores 16-bit operands.
template <class X>
__device__ __forceinline__ const void* staged_copy(const X& x) {
  if constexpr (is_data_tile<X>::value) {
    if constexpr (is_staged_layout<typename X::layout_type>) return x.storage.staged;
  }
  return nullptr;
}

// tl::trans(x) of a staged tile x: materialized with x's copy (cuda/backend.cuh).
template <class E>
inline constexpr bool is_trans_of_staged = [] {
  if constexpr (is_trans_v<E>) {
    using X = typename E::a_type;
    if constexpr (is_data_tile<X>::value) return is_staged_layout<typename X::layout_type>;
    else return false;
  } else {
    return false;
  }
}();

// The registers dot stages an operand from: those of the tile, or, for a staged tile whose site
// copied nothing (it loaded plainly) and kept its load (cuda/tile_storage.cuh, staged_registers),
// that load run again here, so that no registers of it live from the site to the dot.
template <class X, class Data, class Stage>
__device__ __forceinline__ void stage_from_registers(const X& x, const Data& data, Stage&& stage) {
  if constexpr (is_data_tile<X>::value) {
    if constexpr (is_staged_layout<typename X::layout_type>) {
      if (x.storage.again.set) {
        const auto loaded = x.storage.again.source().load();
        stage(loaded.storage);
        return;
      }
    }
  }
  stage(data.storage);
}

// Where a dot leaves its product in flight: a tile of a descriptor ring read in its slot notes it
// for the ring (cuda/ring.cuh), which then waits for all products but the newest before it
// refills the slot an iteration before last read.
template <class X>
__device__ __forceinline__ void note_in_flight(const X& x) {
  if constexpr (requires { typename X::layout_type; }) {
    using L = typename X::layout_type;
    if constexpr (is_staged_layout<L> || is_staged_transposed_layout<L>) {
      if constexpr (requires { x.storage.again.source().note_in_flight(); })
        if (x.storage.staged != nullptr && x.storage.again.set) x.storage.again.source().note_in_flight();
    }
  }
}

// dot's own staging of its operands for wgmma: aligned to its swizzles' 8 rows.
template <int Bytes>
struct wgmma_operands_key;

template <int M, int N, int K, class A, class B, class C>
__device__ __forceinline__ auto dot_mma(const A& a, const B& b, const C& acc) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  static_assert(sizeof(A) == 0,
                "tl::dot on the tensor cores (tl::tf32, float16 or bfloat16 operands) needs "
                "mma.sync of sm_80 or later: build for sm_80 or sm_90");
#endif
  using SC = shape<M, N>;
  using LC = declared_layout<SC>;
  constexpr int log_n = layouts::log2_exact(N);
  using tiles = mma_tiles<LC::value, log_n>;
  static_assert(tiles::valid(), "tl (GPU backend): internal error: the accumulator is not in mma tiles");

  using Elem = value_of_t<A>;
  constexpr mma_kind kind = kind_of<Elem>();
  constexpr bool is_tf32 = kind == mma_kind::tf32;
  constexpr int bytes = is_tf32 ? 4 : 2;
  constexpr int k_step = is_tf32 ? 8 : 16;
  using Stored = std::conditional_t<is_tf32, std::uint32_t, std::uint16_t>;
  // tl::dot's own rule (powers of two, at least 16) makes every shape a multiple of the tiles;
  // this says so where a change of either would break it.
  static_assert(M % 16 == 0 && N % 8 == 0 && K % k_step == 0,
                "tl::dot on the tensor cores: M must be a multiple of 16, N of 8 and K of 8 (TF32) "
                "or 16 (float16, bfloat16), the mma.sync tile");

  // Everything that may convert through shared memory first.
  const auto& da = as_data(a);
  const auto& db = as_data(b);

  // b as the rows of b^T, [N, K], for TF32 and where b's layout holds more consecutive k than
  // consecutive n in a thread (the transpose of a tile loaded as [N, K]); else as it is, [K, N].
  using LB = typename std::remove_cvref_t<decltype(db)>::layout_type;
  using LB_rows = layouts::layout<transposed_layout<shape<K, N>>(LB::value)>;
  // A b that is tl::trans of a staged [N, K] tile is read as those rows, where they are.
  constexpr bool b_transposed_staged = !is_tf32 && is_staged_transposed_layout<LB>;
  constexpr bool b_rows =
      is_tf32 || b_transposed_staged || vector_bits<Stored, LB_rows>() > vector_bits<Stored, LB>();
  using SwzA = swizzled<M, K, bytes>;                                  // a [M, K]
  using SwzB = std::conditional_t<b_rows, swizzled<N, K, bytes>,       // b^T [N, K]
                                  swizzled<K, N, bytes>>;              // b [K, N]
  basic_tile<float, SC, LC> out(detail::uninitialized_t{});
  evaluate_into(out.storage, acc);

  // a from registers where it is already in the A fragments' places (cuda/mma_registers.cuh).
  using LA = typename std::remove_cvref_t<decltype(da)>::layout_type;
  using a_in_registers = a_operand_in_registers<mma_tiles, LA::value, LC::value,
                                                layouts::log2_exact(M), layouts::log2_exact(K), log_n, bytes>;
  constexpr int staged_a = a_in_registers::value ? 0 : SwzA::elements;
  constexpr int staged_bytes = (staged_a + SwzB::elements) * bytes;
  constexpr bool fits = staged_bytes <= max_block_shared_bytes;
  static_assert(fits,
                "tl::dot of these blocks needs more than 227 KiB of shared memory on the GPU (its "
                "operands, [M, K] and [K, N], are staged there for the tensor cores): use a "
                "smaller K block (B_MID), or smaller M and N blocks");
  // Hopper's warpgroup instructions where the accumulator is theirs (cuda/wgmma.cuh): b from
  // shared memory, a from there too or, already in the A fragments' places, from registers.
  constexpr bool use_wgmma = wgmma_built && !is_tf32 && wgmma_fits<tiles, LC::value, log_n>();
  Stored* const buffer = [] {
    if constexpr (use_wgmma) {
      static_assert((staged_a * bytes) % SwzB::alignment == 0,
                    "tl (GPU backend): internal error: b's staging is not aligned for wgmma");
      constexpr int align = SwzA::alignment > SwzB::alignment ? SwzA::alignment : SwzB::alignment;
      return reinterpret_cast<Stored*>(shared_region<wgmma_operands_key<staged_bytes>, staged_bytes, align>());
    } else
      return static_cast<Stored*>(shared_bytes<fits ? staged_bytes : 16>());
  }();
  // An operand a pipelined range's load already copied to shared memory is read where it is (its
  // site's barrier made it visible), an `a` in the A fragments' places is read from registers;
  // the others are staged here between two barriers. The pointers are the same in every thread,
  // so every thread takes the same branch.
  const Stored* as =
      is_tf32 || a_in_registers::value ? nullptr : static_cast<const Stored*>(staged_copy(a));
  // A staged slot holds the loaded tile's own rows ([K, N] for a b loaded as it is, whose blocked
  // layout holds consecutive n): what SwzB is for such a b.
  static_assert(!is_staged_layout<LB> || is_tf32 || !b_rows,
                "tl (GPU backend): internal error: a staged b read as the rows of its transpose");
  const Stored* bs = [&]() -> const Stored* {
    if constexpr (b_transposed_staged) return static_cast<const Stored*>(db.storage.staged);
    else if constexpr (is_tf32) return nullptr;
    else return static_cast<const Stored*>(staged_copy(b));
  }();
  const bool stage_a = !a_in_registers::value && as == nullptr;
  if (stage_a || bs == nullptr) {
    auto convert = [](const auto& x) -> Stored {
      if constexpr (is_tf32) return tf32_bits(static_cast<float>(x));
      else return half_bits(x);
    };
    if constexpr (use_wgmma) wgmma_wait_all();  // an earlier dot's group may still read this buffer
    __syncthreads();  // earlier readers of this buffer are done
    if constexpr (!a_in_registers::value)
      if (stage_a)
        stage_from_registers(a, da, [&](const auto& r) { stage<SwzA, Stored>(buffer, r, convert); });
    if (bs == nullptr) {
      if constexpr (b_transposed_staged) {
        // Its site loaded plainly: that load again where the tile kept it (x's [N, K] rows, as
        // stage_from_registers does for a staged tile), else the registers.
        bool again = false;
        if constexpr (requires { db.storage.again.source(); })
          if (db.storage.again.set) {
            stage<SwzB, Stored>(buffer + staged_a, db.storage.again.source().load().storage, convert);
            again = true;
          }
        if (!again) stage<SwzB, Stored>(buffer + staged_a, transposed_view(db.storage), convert);
      } else if constexpr (b_rows) {
        stage<SwzB, Stored>(buffer + staged_a, transposed_view(db.storage), convert);
      } else {
        stage_from_registers(b, db, [&](const auto& r) { stage<SwzB, Stored>(buffer + staged_a, r, convert); });
      }
    }
    if constexpr (use_wgmma) fence_shared_for_wgmma();
    __syncthreads();
    if (stage_a) as = buffer;
    if (bs == nullptr) bs = buffer + staged_a;
  }

  // This warp's first row and column: the lane bits of the accumulator layout give rows 0-2 and
  // columns 1-2 of a tile, the warp bits its tile.
  const int base = thread_flat<LC>();
  const int row0 = (base >> log_n) & ~15, col0 = (base & (N - 1)) & ~7;
  if constexpr (use_wgmma) {
    // A dot of an operand a pipelined range staged leaves its group in flight: the range's next
    // staged site waits for it before the barrier after which copies overwrite the slots it reads,
    // another dot before it stages into its own buffer, and the range when it ends (cuda/pipeline.cuh),
    // so that it overlaps the next iteration's bookkeeping up to that barrier. Where anything else
    // reads the accumulator first, ptxas waits there itself. Every other dot waits for its group.
    // (Not with a from registers: its fragments would be reused while the group still reads them.)
    constexpr bool in_flight =
        !a_in_registers::value && (is_staged_layout<LA> || is_staged_layout<LB> || b_transposed_staged);
    if constexpr (a_in_registers::value) {
      const auto fragment = [&](std::uint32_t(&fa)[4], int m, int k0) {
        a_fragment_from_registers<a_in_registers::n_tiles>(fa, da.storage, m, k0);
      };
      wgmma_steps<Elem, tiles, SwzA, SwzB, b_rows, K, in_flight>(out.storage.regs, fragment, bs, row0);
    } else {
      wgmma_steps<Elem, tiles, SwzA, SwzB, b_rows, K, in_flight>(out.storage.regs, as, bs, row0);
    }
    if constexpr (in_flight) {
      note_in_flight(da);
      note_in_flight(db);
    }
  } else {
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int k0 = 0; k0 < K; k0 += k_step) {
      // Every fragment of the k step first, then the products: ldmatrix and mma are volatile asm,
      // kept in their order, so fetching each n-tile's fragment just before its mma would wait out
      // the fragment's latency once per n-tile.
      std::uint32_t fa[tiles::mt][4];
      std::uint32_t fb[tiles::nt][2];
      if constexpr (a_in_registers::value)
        static_for<tiles::mt>([&](auto m) {
          a_fragment_from_registers<a_in_registers::n_tiles>(fa[decltype(m)::value], da.storage,
                                                             decltype(m)::value, k0);
        });
      else
        fetch_a_fragments<tiles, SwzA>(fa, as, row0, k0);
      if constexpr (tiles::nt % 2 == 0) {
        static_for<tiles::nt / 2>([&](auto n) {
          constexpr int nn = 2 * decltype(n)::value;
          fetch_b_fragment_pair<SwzB, b_rows>(fb[nn], fb[nn + 1], bs, col0 + tiles::col(nn),
                                               col0 + tiles::col(nn + 1), k0);
        });
      } else {
        static_for<tiles::nt>([&](auto n) {
          constexpr int nn = decltype(n)::value;
          fetch_b_fragment<SwzB, b_rows>(fb[nn], bs, col0 + tiles::col(nn), k0);
        });
      }
      static_for<tiles::nt>([&](auto n) {
        constexpr int nn = decltype(n)::value;
        static_for<tiles::mt>([&](auto m) {
          constexpr int t = decltype(m)::value * tiles::nt + nn;
          auto& r = out.storage.regs;
          mma<kind>(r[4 * t], r[4 * t + 1], r[4 * t + 2], r[4 * t + 3], fa[decltype(m)::value], fb[nn]);
        });
      });
    }
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
