// Hopper's copy engine (TMA) and the barriers it completes on, one wrapper per instruction:
// mbarrier init, arrive, arrive with an expected byte count, parity wait, invalidate; a tiled tensor
// copy from global to shared memory; a tensor map built in shared memory with tensormap.replace
// and published to global memory. CCCL's cuda::ptx wraps each of them but mbarrier.inval (not in
// the toolkit's CCCL of CUDA 13.0), written here. In the host emulation each is
// cuda/host_emulation.hpp's model of it, so CI runs the same lowering.
//
// `has_tma` says whether this build has the instructions: the emulation, or device code for a
// GPU of sm_90a (tensormap.replace is of the "a" target only).
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <string>

#include "tile/config.hpp"

#if !defined(TL_EMULATED_GPU)
#include <cuda/ptx>
#endif

namespace tl {
inline namespace TL_ABI {
namespace cuda::arch {

#if defined(TL_EMULATED_GPU) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool has_tma = true;
#else
inline constexpr bool has_tma = false;
#endif

// What a tiled tensor map says, in the copy engine's order (dimension 0 the innermost, strides
// in bytes of dimensions 1 and up).
struct tensor_map_fields {
  const void* base;
  int rank;
  int element_bytes;
  std::uint32_t box[5];
  std::uint64_t dims[5];
  std::uint64_t strides[4];
  // 0, or 32, 64 or 128: the box's rows (its dimension 0, that many bytes) land swizzled as
  // wgmma reads them, each 16-byte chunk's index XORed with the row's within the swizzle's
  // period of 8 rows (cuda/mma.cuh's swizzled<R, C, 2>); the destination is aligned to it.
  int swizzle_bytes;
};

#if defined(TL_EMULATED_GPU)
// The copy engine's tiled copy, as the emulation makes it when a wait lands it: the box in
// row-major order (dimension 0 fastest), zeros for elements outside the tensor. Its bytes, the
// whole box's, are what it completes on the barrier.
inline long long emulated_tensor_copy(const emulation::block::tensor_copy& c) {
  tensor_map_fields f;
  std::memcpy(&f, c.map, sizeof f);
  if (static_cast<long long>(c.coords[0]) * f.element_bytes % 16 != 0)
    emulation::this_block().abandon(
        "a tensor copy whose innermost coordinate is not at a multiple of 16 bytes (" +
        std::to_string(c.coords[0]) + " elements of " + std::to_string(f.element_bytes) +
        " bytes): an H200 stops the kernel there (an illegal instruction)");
  long long elements = 1;
  for (int d = 0; d < f.rank; ++d) elements *= f.box[d];
  auto* to = static_cast<unsigned char*>(c.to);
  for (long long e = 0; e < elements; ++e) {
    long long rest = e, offset = 0;
    bool inside = true;
    for (int d = 0; d < f.rank; ++d) {
      const long long at = c.coords[d] + rest % f.box[d];
      rest /= f.box[d];
      inside = inside && at >= 0 && at < static_cast<long long>(f.dims[d]);
      offset += at * (d == 0 ? f.element_bytes : static_cast<long long>(f.strides[d - 1]));
    }
    unsigned char* at_byte = to + e * f.element_bytes;
    if (f.swizzle_bytes != 0) {  // the swizzle is of the shared address's bits, as on the GPU
      const auto a = reinterpret_cast<std::uintptr_t>(at_byte);
      const auto mask = static_cast<std::uintptr_t>(f.swizzle_bytes / 16 - 1);
      at_byte = reinterpret_cast<unsigned char*>(a ^ (((a >> 7) & mask) << 4));
    }
    if (inside) std::memcpy(at_byte, static_cast<const unsigned char*>(f.base) + offset, f.element_bytes);
    else std::memset(at_byte, 0, f.element_bytes);
  }
  return elements * f.element_bytes;
}
#endif

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned arrivals) {
#if defined(TL_EMULATED_GPU)
  emulation::mbarrier_init(bar, arrivals);
#elif defined(__CUDA_ARCH__)
  ::cuda::ptx::mbarrier_init(bar, arrivals);
  // The copy engine (the async proxy) must see the barrier initialized.
  ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
#endif
}

__device__ __forceinline__ void mbarrier_inval(std::uint64_t* bar) {
#if defined(TL_EMULATED_GPU)
  emulation::mbarrier_inval(bar);
#elif defined(__CUDA_ARCH__)
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];"
               :
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar)))
               : "memory");
#endif
}

// One arrival (release: this thread's reads and writes before it are done for whoever waits).
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
#if defined(TL_EMULATED_GPU)
  emulation::mbarrier_arrive(bar);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  (void)::cuda::ptx::mbarrier_arrive(bar);
#endif
}

// One arrival, and `bytes` more for the phase to wait for (the copies that complete on it).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
#if defined(TL_EMULATED_GPU)
  emulation::mbarrier_arrive_expect_tx(bar, bytes);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  (void)::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta,
                                               ::cuda::ptx::space_shared, bar, bytes);
#endif
}

// Waits until the barrier's phase of this parity has completed.
__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* bar, unsigned parity) {
#if defined(TL_EMULATED_GPU)
  while (!emulation::mbarrier_try_wait_parity(bar, parity, emulated_tensor_copy)) emulation::spin();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  while (!::cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
#endif
}

// The box of `map` at `coords` (the copy engine's order) into shared memory at `to` (128-byte
// aligned), completing its bytes on `bar`; elements outside the tensor arrive as zeros.
template <int Rank>
__device__ __forceinline__ void tma_load(void* to, const void* map, const int (&coords)[Rank],
                                         std::uint64_t* bar) {
#if defined(TL_EMULATED_GPU)
  emulation::tma_load(to, map, coords, Rank, bar);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  ::cuda::ptx::cp_async_bulk_tensor(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, to, map,
                                    coords, bar);
#endif
}

// Builds the tensor map of `f` in `staging` (128 shared bytes, 128-byte aligned) and publishes
// it to `map` (128 global bytes, 64-byte aligned). Called by the 32 lanes of one warp together;
// lane 0 then acquires it for the copies it issues. Fields the copy engine reads beyond `f`: no
// interleave, zeros for elements outside the tensor, elements of unsigned integer
// types of their size (a copy moves bits).
__device__ __forceinline__ void tensor_map_build(void* staging, void* map, const tensor_map_fields& f) {
#if defined(TL_EMULATED_GPU)
  emulation::tensor_map_build(staging, map, &f, sizeof f);
#elif defined(__CUDA_ARCH_FEAT_SM90_ALL)
  namespace ptx = ::cuda::ptx;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  // On sm_90a, zeros are a valid map to replace fields in.
  static_cast<std::uint32_t*>(staging)[lane] = 0;
  __syncwarp();
  if (lane == 0) {
    ptx::tensormap_replace_global_address(ptx::space_shared, staging, reinterpret_cast<std::uint64_t>(f.base));
    ptx::tensormap_replace_rank(ptx::space_shared, staging, static_cast<std::uint32_t>(f.rank - 1));
    auto each = [&]<int D>(ptx::n32_t<D> d) {
      if (D >= f.rank) return;
      ptx::tensormap_replace_box_dim(ptx::space_shared, staging, d, f.box[D]);
      ptx::tensormap_replace_global_dim(ptx::space_shared, staging, d, static_cast<std::uint32_t>(f.dims[D]));
      ptx::tensormap_replace_element_stride(ptx::space_shared, staging, d, std::uint32_t{1});
      if constexpr (D < 4)
        if (D + 1 < f.rank) ptx::tensormap_replace_global_stride(ptx::space_shared, staging, d, f.strides[D]);
    };
    each(ptx::n32_t<0>{});
    each(ptx::n32_t<1>{});
    each(ptx::n32_t<2>{});
    each(ptx::n32_t<3>{});
    each(ptx::n32_t<4>{});
    // The copy engine's element types: 0 u8, 1 u16, 2 u32, 4 u64.
    if (f.element_bytes == 2) ptx::tensormap_replace_elemtype(ptx::space_shared, staging, ptx::n32_t<1>{});
    else if (f.element_bytes == 4) ptx::tensormap_replace_elemtype(ptx::space_shared, staging, ptx::n32_t<2>{});
    else if (f.element_bytes == 8) ptx::tensormap_replace_elemtype(ptx::space_shared, staging, ptx::n32_t<4>{});
    ptx::tensormap_replace_interleave_layout(ptx::space_shared, staging, ptx::n32_t<0>{});
    // The swizzle modes: 0 none, 1 32 bytes, 2 64, 3 128.
    if (f.swizzle_bytes == 128) ptx::tensormap_replace_swizzle_mode(ptx::space_shared, staging, ptx::n32_t<3>{});
    else if (f.swizzle_bytes == 64) ptx::tensormap_replace_swizzle_mode(ptx::space_shared, staging, ptx::n32_t<2>{});
    else if (f.swizzle_bytes == 32) ptx::tensormap_replace_swizzle_mode(ptx::space_shared, staging, ptx::n32_t<1>{});
    else ptx::tensormap_replace_swizzle_mode(ptx::space_shared, staging, ptx::n32_t<0>{});
    ptx::tensormap_replace_fill_mode(ptx::space_shared, staging, ptx::n32_t<0>{});
  }
  __syncwarp();
  ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, map, staging, ptx::n32_t<128>{});
  if (lane == 0) ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, map, ptx::n32_t<128>{});
#else
  (void)staging, (void)map, (void)f;
#endif
}

}  // namespace cuda::arch
}  // namespace TL_ABI
}  // namespace tl
