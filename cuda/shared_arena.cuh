// Shared memory: one arena per kernel, laid out at compile time, launched as dynamic shared
// memory so that it may pass the 48 KiB ptxas allows a kernel's static shared memory.
//
// Each buffer tl's lowering needs (a conversion's or a reduction's, dot's staging, a pipelined
// site's stages) is named by a type and has a size known at compile time, but the set a kernel
// uses is known only once nvcc has instantiated the kernel: no C++ expression can sum it. ptxas
// can: it lays out every static __shared__ variable a kernel reaches. So each buffer of B bytes
// is represented in static shared memory by a marker of ceil(B / 128) bytes, and ptxas's layout
// of the markers, scaled by 128, is the layout of the buffers in the arena. The markers take
// 1/128 of the arena; a buffer starts on a 128-byte boundary.
//
// The launcher (cuda/launch.cuh, shared_arena_of) launches a kernel with 128 times its
// static shared memory (cudaFuncGetAttributes) as dynamic shared memory. The dynamic region
// begins where the static one ends, so the static region mirrored about that point, scaled by
// 128, is the arena: a buffer starts 128 times its marker's end's distance below the dynamic
// region into the arena. Markers do not overlap, so neither do their buffers, and every buffer
// ends within 128 times the static region. (Seen on an H200, built for sm_90 and for sm_80:
// ptxas puts the markers after the GPU's reserved kilobyte, largest first, and the dynamic
// region right after them at a multiple of 128 bytes; cudaFuncGetAttributes counts the bytes in
// between as static. bench/probes/shared_arena_probe.cu shows it.)
//
// The offsets are multiples of 128, which the compiler sees, so it keeps 16-byte shared accesses
// whole (an offset read from %dynamic_smem_size made it split them). They are not free: ptxas
// computes a buffer's address from two shared addresses where a static array's is an immediate,
// a few instructions per use that it does not hoist out of a loop. Measured on an H200
// (bench/HISTORY.md, "The shared-memory arena"): the 255-register staged fp16 matmul at
// 128 x 128 x 16 loses 10 %, flash attention and the plain loops nothing measurable.
//
// In the host emulation a buffer is a static array of its own size: one block runs at a time.
#pragma once

#include "cuda/runtime.cuh"

#include <cstddef>
#include <string>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// Bytes of the arena per byte of marker.
inline constexpr int arena_scale = 128;

// The most shared memory a block may have on sm_90 (cudaDevAttrMaxSharedMemoryPerBlockOptin:
// 227 KiB); an sm_80 GPU gives 163 KiB, which the launcher checks.
inline constexpr int max_block_shared_bytes = 227 * 1024;

// The buffer of Bytes bytes named Key, Align-byte aligned (128 or more: wgmma reads a swizzled
// operand from a buffer aligned to its swizzle's 8 rows, up to 1024 bytes), the same in every
// thread of the block and at every call.
template <class Key, int Bytes, int Align = arena_scale>
__device__ __forceinline__ unsigned char* shared_region() {
  static_assert(Align >= arena_scale && (Align & (Align - 1)) == 0,
                "tl (GPU backend): internal error: a shared buffer's alignment");
  static_assert(Bytes > 0 && Bytes <= max_block_shared_bytes,
                "tl (GPU backend): a kernel's tiles need more shared memory than a block of an "
                "H100 has (227 KiB) for one conversion, reduction, dot or pipelined load: use "
                "smaller blocks or fewer stages");
#if defined(TL_EMULATED_GPU)
  alignas(Align) __shared__ unsigned char buffer[Bytes];
  return buffer;
#else
  // A buffer aligned past 128 bytes is found by rounding its 128-aligned start up: its marker
  // covers the bytes that may skip.
  constexpr int marker_bytes = (Bytes + Align - 1) / arena_scale;
  __shared__ unsigned char marker[marker_bytes];
  extern __shared__ __align__(128) unsigned char arena[];
  // In 32-bit shared addresses, made generic once: a generic pointer computed from the arena's
  // generic address took more registers (4 blocks of the 3-stage 64 x 64 x 32 matmul per
  // multiprocessor became 3, 54 to 48 TFLOP/s on an H200).
  const unsigned start = static_cast<unsigned>(__cvta_generic_to_shared(arena));
  const unsigned above = start - static_cast<unsigned>(__cvta_generic_to_shared(marker)) - marker_bytes;
  unsigned address = start + above * arena_scale;
  if constexpr (Align > arena_scale) address = (address + Align - 1) & ~static_cast<unsigned>(Align - 1);
  return static_cast<unsigned char*>(__cvta_shared_to_generic(address));
#endif
}

// What a launch whose arena does not fit the GPU reports.
inline std::string shared_arena_too_large(std::size_t needed, std::size_t limit) {
  auto kib = [](std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; };
  return "the kernel needs " + kib(needed) + " of shared memory per program (its layout "
         "conversions, reductions, dot's operands and the stages of its pipelined loads), and this "
         "GPU gives a block at most " + kib(limit) +
         ": use smaller blocks, or fewer stages in tl::range";
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
