// tl::dot of 16-bit operands on Hopper's warpgroup tensor cores: wgmma.mma_async, b read from
// shared memory through a matrix descriptor, a through one too or, where it is already in the A
// fragments' places (cuda/mma_registers.cuh), from registers.
//
// mma.sync (cuda/mma.cuh) computes one m16n8k16 per warp and instruction, from fragments each
// warp first reads with ldmatrix; wgmma computes m64nNk16 per warpgroup (4 warps) and
// instruction, N up to 256, reading the operands itself. A [128, 128] accumulator with K = 32 of
// 4 warps is 4 wgmma instead of 256 mma.sync, 48 ldmatrix and their address arithmetic.
//
// The accumulator needs no conversion: wgmma's m64nN result gives warp w of the warpgroup rows
// 16w .. 16w + 15, and in them the registers of mma.sync's m16n8 accumulator repeated over the
// N / 8 column tiles (register 4n + i is c_i of tile n). That is the declared layout of [M, N]
// (cuda/layout.cuh) wherever its warps all lie along the rows: warps 0-3 of a warpgroup take rows
// 16, 32 apart, the warpgroups and the registers above the n-tiles 64 apart. dot_mma takes this
// path for such a layout (wgmma_fits below) in a build for sm_90a, where the instructions exist.
//
// The operands are the swizzled tiles of cuda/mma.cuh (`swizzled<R, C, 2>`), whose layout is the
// one the descriptors describe: a is stored [M, K], K-major in wgmma's words; b either [K, N]
// (MN-major: read transposed, the `tnspB` bit) or as the rows of b^T, [N, K] (K-major). A
// descriptor gives the start address, the swizzle mode (the stored row's 32, 64 or 128 bytes),
// the distance between groups of 8 rows ("stride", 8 stored rows) and, for an MN-major b wider than
// one 64-column panel, the distance between panels ("leading"). The k step moves the start: 32
// bytes along a K-major row, 16 rows down an MN-major panel.
//
// Ordering. Shared memory written by ordinary stores or cp.async (the generic proxy) must be
// fenced (fence.proxy.async) by the writing thread before a barrier and a wgmma (the async
// proxy) reads it; cuda/mma.cuh and cuda/operand_stages.cuh do so after their writes. Registers
// written by ordinary instructions are fenced with wgmma.fence before the first wgmma reads them.
// Each dot commits one group. A dot of an operand a pipelined range staged leaves it in flight,
// and whoever next overwrites shared memory it may read waits for it first (wgmma_wait_all before
// the barrier that precedes the writes: the next staged site's, dot's own staging's), as does the
// range when it ends; ptxas waits before any other read of the accumulator. Every other dot waits
// for its group before it returns.
//
// In the host emulation (cuda/host_emulation.hpp) each thread computes its own accumulator
// elements from the descriptors: the addresses the hardware forms (start, strides, the swizzle's
// XOR of address bits 4-6 with bits 7-9) read the tiles the lowering stored, so CI checks that
// the layout and the descriptors agree; the products add in order of k, as the simulator's do.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/layout.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/dtypes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

#if defined(TL_EMULATED_GPU) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool wgmma_built = true;
#else
inline constexpr bool wgmma_built = false;
#endif

// The 64-bit matrix descriptor: start address, leading and stride byte offsets in 16-byte units
// (bits 0-13, 16-29, 32-45) and the swizzle mode (bits 62-63: 1 for 128 bytes, 2 for 64, 3 for
// 32).
__host__ __device__ constexpr std::uint64_t wgmma_descriptor(unsigned shared_address, int leading_bytes,
                                                             int stride_bytes, int row_bytes) {
  const std::uint64_t mode = row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3;
  return static_cast<std::uint64_t>((shared_address & 0x3ffffu) >> 4) |
         static_cast<std::uint64_t>((leading_bytes >> 4) & 0x3fff) << 16 |
         static_cast<std::uint64_t>((stride_bytes >> 4) & 0x3fff) << 32 | mode << 62;
}

// A swizzled operand in shared memory as a descriptor describes it, with the descriptor itself.
// A step within the operand adds to the descriptor's start field, as to the address: shared
// addresses lie below 256 KiB, so the 14-bit field never carries into the next, and the step is a
// 32-bit add to the descriptor's low word (building each step's descriptor anew took about 17
// instructions per wgmma, a tenth of the 8-warp staged matmul's k-step: bench/NOTES.md, version
// 11; tests/gpu/emulation_checks.cpp checks the no-carry claim).
struct wgmma_operand {
  // The emulation reads the operand from `start` (cuda/host_emulation.hpp has no shared window).
  __device__ __forceinline__ static std::uint64_t shared_descriptor(const unsigned char* start, int leading_bytes,
                                                                    int stride_bytes, int row_bytes) {
#if defined(TL_EMULATED_GPU)
    (void)start, (void)leading_bytes, (void)stride_bytes, (void)row_bytes;
    return 0;
#else
    return wgmma_descriptor(static_cast<unsigned>(__cvta_generic_to_shared(start)), leading_bytes, stride_bytes,
                            row_bytes);
#endif
  }

  const unsigned char* start;
  int row_bytes;      // the swizzle mode: 32, 64 or 128 bytes per stored row
  int stride_bytes;   // from one group of 8 stored rows to the next
  int leading_bytes;  // MN-major: from one panel of row_bytes / 2 columns to the next
  std::uint32_t descriptor_low, descriptor_high;

  __device__ __forceinline__ wgmma_operand(const unsigned char* start, int row_bytes, int stride_bytes,
                                           int leading_bytes)
      : start(start), row_bytes(row_bytes), stride_bytes(stride_bytes), leading_bytes(leading_bytes) {
    const std::uint64_t d = shared_descriptor(start, leading_bytes, stride_bytes, row_bytes);
    descriptor_low = static_cast<std::uint32_t>(d);
    descriptor_high = static_cast<std::uint32_t>(d >> 32);
  }

  __device__ __forceinline__ std::uint64_t descriptor() const {
    return static_cast<std::uint64_t>(descriptor_high) << 32 | descriptor_low;
  }

  // `bytes` a multiple of 16, within the operand's buffer.
  __device__ __forceinline__ wgmma_operand advanced(int bytes) const {
    wgmma_operand moved = *this;
    moved.start += bytes;
    moved.descriptor_low += static_cast<std::uint32_t>(bytes >> 4);
    return moved;
  }
};

__device__ __forceinline__ void wgmma_fence_operands() {
#if !defined(TL_EMULATED_GPU)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit() {
#if !defined(TL_EMULATED_GPU)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

// Waits for every wgmma group this thread's warpgroup committed. Nothing to wait for where wgmma is
// not built (and in the emulation, whose wgmma completes at once), nor in a program of fewer than
// 4 warps, which never issues wgmma (wgmma_fits): there the instruction would run in an incomplete
// warpgroup, an error compute-sanitizer's synccheck reports.
__device__ __forceinline__ void wgmma_wait_all() {
#if !defined(TL_EMULATED_GPU) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (num_warps % 4 == 0) asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
}

// Waits for every wgmma group of this warpgroup but the newest (cuda/ring.cuh: the product of
// the last iteration stays in flight while the one before it is done with its slot).
__device__ __forceinline__ void wgmma_wait_all_but_newest() {
#if !defined(TL_EMULATED_GPU) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (num_warps % 4 == 0) asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
#endif
}

// Orders this thread's earlier writes to shared memory before later wgmma reads of it (after a
// barrier, for every thread's writes). Nothing to order where wgmma is not built.
__device__ __forceinline__ void fence_shared_for_wgmma() {
#if !defined(TL_EMULATED_GPU) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

#if defined(TL_EMULATED_GPU)
namespace emulated {
// The byte the hardware reads for a swizzled address: bits 4 .. 4 + log2(row_bytes / 16) XORed
// with the bits 3 above them.
inline const unsigned char* swizzled_address(const unsigned char* p, int row_bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t mask = static_cast<std::uintptr_t>(row_bytes / 16 - 1);
  return reinterpret_cast<const unsigned char*>(a ^ (((a >> 7) & mask) << 4));
}
// Element (row, k) of a K-major operand (a, or b^T's rows): 8 rows of row_bytes per group.
template <class Elem>
float k_major(const wgmma_operand& o, int row, int k) {
  const unsigned char* p = o.start + (row / 8) * o.stride_bytes + (row % 8) * o.row_bytes + k * 2;
  return static_cast<float>(*reinterpret_cast<const Elem*>(swizzled_address(p, o.row_bytes)));
}
// Element (k, n) of an MN-major b: panels of row_bytes / 2 columns, 8 k-rows per group.
template <class Elem>
float mn_major(const wgmma_operand& o, int k, int n) {
  const int per_row = o.row_bytes / 2;
  const unsigned char* p = o.start + (n / per_row) * o.leading_bytes + (k / 8) * o.stride_bytes +
                           (k % 8) * o.row_bytes + (n % per_row) * 2;
  return static_cast<float>(*reinterpret_cast<const Elem*>(swizzled_address(p, o.row_bytes)));
}
}  // namespace emulated
#endif

// The operand lists of wgmma's accumulator, N / 2 registers for m64nN.
#define TL_WGMMA_D8 \
  "{%0, %1, %2, %3}"
#define TL_WGMMA_D16 \
  "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define TL_WGMMA_D32 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define TL_WGMMA_D64 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define TL_WGMMA_D128 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "  \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define TL_WGMMA_D256 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "  \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "  \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "  \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "  \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "  \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "  \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "  \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define TL_WGMMA_F4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define TL_WGMMA_F8(i) TL_WGMMA_F4(i), TL_WGMMA_F4(i + 4)
#define TL_WGMMA_F16(i) TL_WGMMA_F8(i), TL_WGMMA_F8(i + 8)
#define TL_WGMMA_F32(i) TL_WGMMA_F16(i), TL_WGMMA_F16(i + 16)
#define TL_WGMMA_F64(i) TL_WGMMA_F32(i), TL_WGMMA_F32(i + 32)
#define TL_WGMMA_F128(i) TL_WGMMA_F64(i), TL_WGMMA_F64(i + 64)
// d = a b + d for m64nNk16 (scale-d on, no negation, a K-major, b transposed when MN-major):
// `operands` names a (descriptor or four registers), b's descriptor and the immediates, `scale`
// the input that sets scale-d, the inputs follow.
#define TL_WGMMA_ISSUE(n, type, dlist, outputs, operands, scale, ...)                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " scale ", 0;\n"                             \
               "wgmma.mma_async.sync.aligned.m64n" #n "k16.f32." type "." type " " dlist       \
               ", " operands ";\n}\n"                                                          \
               : outputs(0)                                                                    \
               : __VA_ARGS__)
#define TL_WGMMA_CASE(n, dlist, outputs, operands, scale, ...)                                  \
  if constexpr (N == n) {                                                                       \
    if constexpr (std::is_same_v<Elem, bfloat16>)                                               \
      TL_WGMMA_ISSUE(n, "bf16", dlist, outputs, operands, scale, __VA_ARGS__);                  \
    else                                                                                        \
      TL_WGMMA_ISSUE(n, "f16", dlist, outputs, operands, scale, __VA_ARGS__);                   \
  }

#if defined(TL_EMULATED_GPU)
namespace emulated {
// d += a b over one k-step of 16, a's element (row, k) from `a_at`, products added in order of k.
template <class Elem, int N, bool MnMajorB, class AAt>
void wgmma_products(float (&d)[N / 2], const wgmma_operand& b, AAt&& a_at) {
  const int warp = static_cast<int>(threadIdx.x / 32) % 4, lane = lane_id(), g = lane >> 2, q = lane & 3;
  for (int n = 0; n < N / 8; ++n)
    for (int i = 0; i < 4; ++i) {
      const int row = 16 * warp + g + 8 * (i >> 1), col = 8 * n + 2 * q + (i & 1);
      float sum = d[4 * n + i];
      for (int k = 0; k < 16; ++k) {
        const float bv = MnMajorB ? mn_major<Elem>(b, k, col) : k_major<Elem>(b, col, k);
        sum = sum + a_at(i >> 1, row, k) * bv;
      }
      d[4 * n + i] = sum;
    }
}
}  // namespace emulated
#endif

// One m64nNk16 of the warpgroup: d (this thread's N / 2 accumulator registers) += a [64, 16] times
// b [16, N].
template <class Elem, int N, bool MnMajorB>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], const wgmma_operand& a, const wgmma_operand& b) {
  static_assert(N >= 8 && N <= 256 && (N & (N - 1)) == 0,
                "tl (GPU backend): internal error: a wgmma of an unsupported width");
#if defined(TL_EMULATED_GPU)
  emulated::wgmma_products<Elem, N, MnMajorB>(
      d, b, [&](int, int row, int k) { return emulated::k_major<Elem>(a, row, k); });
#else
  const std::uint64_t desc_a = a.descriptor(), desc_b = b.descriptor();
#define TL_WGMMA_SS_INPUTS "l"(desc_a), "l"(desc_b), "r"(1), "n"(MnMajorB ? 1 : 0)
  TL_WGMMA_CASE(8, TL_WGMMA_D8, TL_WGMMA_F4, "%4, %5, p, 1, 1, 0, %7", "%6", TL_WGMMA_SS_INPUTS)
  TL_WGMMA_CASE(16, TL_WGMMA_D16, TL_WGMMA_F8, "%8, %9, p, 1, 1, 0, %11", "%10", TL_WGMMA_SS_INPUTS)
  TL_WGMMA_CASE(32, TL_WGMMA_D32, TL_WGMMA_F16, "%16, %17, p, 1, 1, 0, %19", "%18", TL_WGMMA_SS_INPUTS)
  TL_WGMMA_CASE(64, TL_WGMMA_D64, TL_WGMMA_F32, "%32, %33, p, 1, 1, 0, %35", "%34", TL_WGMMA_SS_INPUTS)
  TL_WGMMA_CASE(128, TL_WGMMA_D128, TL_WGMMA_F64, "%64, %65, p, 1, 1, 0, %67", "%66", TL_WGMMA_SS_INPUTS)
  TL_WGMMA_CASE(256, TL_WGMMA_D256, TL_WGMMA_F128, "%128, %129, p, 1, 1, 0, %131", "%130", TL_WGMMA_SS_INPUTS)
#undef TL_WGMMA_SS_INPUTS
#endif
}

// The same with a from registers: `a` is the warp's m16n8k16 A fragment of its 16 rows of the
// warpgroup's 64 (warp w of the group rows 16w .. 16w + 15), wgmma's register operand; wgmma reads
// a K-major a only.
template <class Elem, int N, bool MnMajorB>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], const std::uint32_t (&a)[4], const wgmma_operand& b) {
  static_assert(N >= 8 && N <= 256 && (N & (N - 1)) == 0,
                "tl (GPU backend): internal error: a wgmma of an unsupported width");
#if defined(TL_EMULATED_GPU)
  // The fragment's rows g and g + 8 hold k = 2q, 2q + 1 (registers 0, 1) and 8 more (2, 3) in
  // lane 4g + q: gathered by shuffles, as the emulated mma.sync does.
  const int g = lane_id() >> 2;
  float rows[2][16];
  for (int k = 0; k < 16; k += 2)
    for (int half_row = 0; half_row < 2; ++half_row) {
      const std::uint32_t word = __shfl_sync(~0u, a[half_row + (k >= 8 ? 2 : 0)], 4 * g + ((k & 7) >> 1));
      Elem low, high;
      const std::uint16_t low_bits = static_cast<std::uint16_t>(word & 0xffffu);
      const std::uint16_t high_bits = static_cast<std::uint16_t>(word >> 16);
      std::memcpy(&low, &low_bits, 2);
      std::memcpy(&high, &high_bits, 2);
      rows[half_row][k] = static_cast<float>(low);
      rows[half_row][k + 1] = static_cast<float>(high);
    }
  emulated::wgmma_products<Elem, N, MnMajorB>(d, b, [&](int half_row, int, int k) { return rows[half_row][k]; });
#else
  const std::uint64_t desc_b = b.descriptor();
#define TL_WGMMA_RS_INPUTS "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1), "n"(MnMajorB ? 1 : 0)
  TL_WGMMA_CASE(8, TL_WGMMA_D8, TL_WGMMA_F4, "{%4, %5, %6, %7}, %8, p, 1, 1, %10", "%9", TL_WGMMA_RS_INPUTS)
  TL_WGMMA_CASE(16, TL_WGMMA_D16, TL_WGMMA_F8, "{%8, %9, %10, %11}, %12, p, 1, 1, %14", "%13", TL_WGMMA_RS_INPUTS)
  TL_WGMMA_CASE(32, TL_WGMMA_D32, TL_WGMMA_F16, "{%16, %17, %18, %19}, %20, p, 1, 1, %22", "%21", TL_WGMMA_RS_INPUTS)
  TL_WGMMA_CASE(64, TL_WGMMA_D64, TL_WGMMA_F32, "{%32, %33, %34, %35}, %36, p, 1, 1, %38", "%37", TL_WGMMA_RS_INPUTS)
  TL_WGMMA_CASE(128, TL_WGMMA_D128, TL_WGMMA_F64, "{%64, %65, %66, %67}, %68, p, 1, 1, %70", "%69", TL_WGMMA_RS_INPUTS)
  TL_WGMMA_CASE(256, TL_WGMMA_D256, TL_WGMMA_F128, "{%128, %129, %130, %131}, %132, p, 1, 1, %134", "%133", TL_WGMMA_RS_INPUTS)
#undef TL_WGMMA_RS_INPUTS
#endif
}

#undef TL_WGMMA_CASE
#undef TL_WGMMA_ISSUE
#undef TL_WGMMA_F128
#undef TL_WGMMA_F64
#undef TL_WGMMA_F32
#undef TL_WGMMA_F16
#undef TL_WGMMA_F8
#undef TL_WGMMA_F4
#undef TL_WGMMA_D256
#undef TL_WGMMA_D128
#undef TL_WGMMA_D64
#undef TL_WGMMA_D32
#undef TL_WGMMA_D16
#undef TL_WGMMA_D8

// Whether an accumulator whose warp owns Tiles (cuda/mma.cuh's mma_tiles of layout L, [M, N]) is
// wgmma's: every warp bit along the rows, warps 0-3 of a warpgroup 16 rows apart, the warp's
// n-tiles consecutive columns from 0 (one m64nN per m-tile, N at most 256), its m-tiles 64 rows
// apart.
template <class Tiles, layouts::linear_layout L, int LogN>
constexpr bool wgmma_fits() {
  if constexpr (L.warp_bits < 2 || Tiles::nt * 8 > 256) {  // not `if`: nvcc warns of the loops
    return false;
  } else {
    for (int w = 0; w < L.warp_bits; ++w)
      if (L.warp[w] != LogN + 4 + w) return false;
    for (int n = 0; n < Tiles::nt; ++n)
      if (Tiles::col(n) != 8 * n) return false;
    for (int m = 0; m < Tiles::mt; ++m)
      if (Tiles::row(m * Tiles::nt) % 64 != 0) return false;
    return true;
  }
}

// acc (the warp's registers of Tiles) += a b over K, from the swizzled tiles at `as` (SwzA: [M,
// K]) and `bs` (SwzB: [K, N], or b^T's rows [N, K] where BRows). The callers made the tiles visible
// to the async proxy (a fence in each writer, then a barrier). With InFlight the group is left
// running (see mma.cuh for who waits for it); else it is waited for here. Where `as` is instead a
// callable, a is in registers: as(fragment, m, k0) writes the warp's A fragment of m-tile m at
// k-step k0 (cuda/mma_registers.cuh), and every fragment is formed before the first wgmma, which
// reads them asynchronously.
template <class Elem, class Tiles, class SwzA, class SwzB, bool BRows, int K, bool InFlight, class Registers,
          class A>
__device__ __forceinline__ void wgmma_steps(Registers& regs, const A& as, const void* bs, int row0) {
  constexpr int n = Tiles::nt * 8;
  constexpr bool a_in_registers = !std::is_pointer_v<A>;
  const wgmma_operand b{static_cast<const unsigned char*>(bs), SwzB::row_bytes, 8 * SwzB::row_bytes,
                        BRows ? 16 : SwzB::panel_bytes};
  auto issue = [&](const auto& a_of) {
    wgmma_fence_operands();
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int k0 = 0; k0 < K; k0 += 16) {
      const wgmma_operand bk = b.advanced(BRows ? SwzB::unswizzled_bytes(0, k0) : SwzB::unswizzled_bytes(k0, 0));
      static_for<Tiles::mt>([&](auto m) {
        constexpr int t = decltype(m)::value * Tiles::nt;
        wgmma<Elem, n, !BRows>(*reinterpret_cast<float(*)[n / 2]>(&regs[4 * t]), a_of(decltype(m)::value, k0), bk);
      });
    }
  };
  if constexpr (a_in_registers) {
    std::uint32_t fragments[K / 16][Tiles::mt][4];
    static_for<K / 16>([&](auto k) {
      static_for<Tiles::mt>([&](auto m) {
        auto& fragment = fragments[decltype(k)::value][decltype(m)::value];
        as(fragment, decltype(m)::value, 16 * decltype(k)::value);
#if !defined(TL_EMULATED_GPU)
        // Each word through an identity shuffle, so that it is formed anew inside any loop around
        // the dot: ptxas (nvcc 13.0) gave a fragment formed before a loop, whose only use in it was
        // a wgmma's register operand, to other values inside the loop (flash attention's q
        // clobbered by p's fragments from the second iteration). It did so in pipelined loops and
        // in a plain one with more branches in it, not in the plain loops tested without: nothing
        // short of every fragment formed in the loop is safe (bench/HISTORY.md, 2026-11-27). A
        // plain move is folded away, a shuffle is not.
        for (auto& word : fragment) word = __shfl_sync(0xffffffffu, word, lane_id());
#endif
      });
    });
    issue([&](int m, int k0) -> const std::uint32_t(&)[4] { return fragments[k0 / 16][m]; });
  } else {
    // The warpgroup's first row: the warp's, less the two warp bits that place it in the group.
    const int group_row0 = row0 & ~63;
    const wgmma_operand a{static_cast<const unsigned char*>(static_cast<const void*>(as)), SwzA::row_bytes,
                          8 * SwzA::row_bytes, 16};
    issue([&](int m, int k0) { return a.advanced(SwzA::unswizzled_bytes(group_row0 + Tiles::row(m * Tiles::nt), k0)); });
  }
  wgmma_commit();
  if constexpr (!InFlight) wgmma_wait_all();
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
