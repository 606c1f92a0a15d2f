// Tensor descriptors on the GPU (the hooks of tile/descriptor.hpp).
//
// On sm_90a (and in the host emulation) a descriptor the copy engine can take gets a tensor map,
// built by the program's first warp into global memory (cuda/tensor_maps.cuh, cuda/arch/tma.cuh),
// and each `desc.load` is one TMA copy of the block into shared memory: thread 0 arms an mbarrier
// with the block's bytes and issues the copy, every thread waits on the barrier's phase, then
// reads its elements in the blocked layout a plain load gives (16-byte vectors). The copy engine
// fills the elements outside the shape with zeros, which is the rule of tile/descriptor.hpp.
//
// The copy engine takes a descriptor whose innermost stride is 1, whose base is 16-byte aligned
// and whose other strides are multiples of 16 bytes (below 2^40). Any other descriptor, every
// descriptor where the launcher gave no memory for maps or a program made more than
// maps_per_program, every descriptor on another GPU (sm_80 included), and every `desc.store` move
// their blocks as the masked load or store they mean (cuda/memory.cuh): the same results. Which
// way a descriptor goes is decided when it is made, the same in every thread.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <source_location>

#include "cuda/arch/tma.cuh"
#include "cuda/memory.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/tensor_maps.cuh"
#include "cuda/tile_storage.cuh"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

struct descriptor_map_claim;
struct descriptor_map_staging;
struct descriptor_barrier;
template <class Elem, class Block>
struct descriptor_block_buffer;

// Whether the copy engine can move this descriptor's blocks (a run-time test of its arguments).
template <class D>
__device__ __forceinline__ bool copy_engine_takes(const D& desc) {
  using Elem = std::remove_const_t<typename D::element_type>;
  constexpr int rank = D::rank;
  if (reinterpret_cast<std::uintptr_t>(desc.base.address) % 16 != 0) return false;
  if (desc.strides[rank - 1] != 1) return false;
  for (int a = 0; a + 1 < rank; ++a) {
    const long long bytes = static_cast<long long>(desc.strides[a]) * sizeof(Elem);
    if (bytes <= 0 || bytes % 16 != 0 || bytes >= (1LL << 40)) return false;
  }
  for (int a = 0; a < rank; ++a)
    if (desc.shape[a] < 1) return false;
  return true;
}

// The block at `coords` through the copy engine, read in layout L.
template <class Elem, class Block, class L, class D>
__device__ __forceinline__ auto copy_engine_load(const D& desc, const int* coords) {
  constexpr int rank = Block::rank;
  constexpr int bytes = static_cast<int>(Block::size * sizeof(Elem));
  const Elem* block =
      reinterpret_cast<const Elem*>(shared_region<descriptor_block_buffer<Elem, Block>, bytes>());
  auto* bar = reinterpret_cast<std::uint64_t*>(shared_region<descriptor_barrier, 8>());
  if (threadIdx.x == 0) {
    arch::mbarrier_init(bar, 1);
    arch::mbarrier_arrive_expect_tx(bar, bytes);
    int reversed[rank];  // the copy engine counts dimensions from the innermost
    static_for<rank>([&](auto a) { reversed[a] = coords[rank - 1 - a]; });
    arch::tma_load<rank>(const_cast<Elem*>(block), desc.state.map, reversed, bar);
  }
  __syncthreads();  // the barrier is initialized before anyone waits on it
  arch::mbarrier_wait_parity(bar, 0);

  basic_tile<Elem, Block, L> out(detail::uninitialized_t{});
  constexpr int V = 1 << vector_bits<Elem, L>();
  const int thread = thread_flat<L>();
  static_for<L::registers / V>([&](auto group) {
    constexpr int first = decltype(group)::value * V;
    const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(block + flat_of<L, first>(thread));
    static_for<V>([&](auto j) { out.storage.regs[first + j] = chunk.v[j]; });
  });
  __syncthreads();  // every read is done before the next copy into the buffer
  if (threadIdx.x == 0) arch::mbarrier_inval(bar);
  return out;
}

}  // namespace cuda

namespace backend {

// `copies`: whether the copy engine moves this descriptor's blocks (the same in every thread);
// `map`: its tensor map, in thread 0, which issues the copies.
template <class T, int Rank>
struct descriptor_state {
  const void* map = nullptr;
  bool copies = false;
};

template <class D>
__device__ __forceinline__ void make_descriptor(D& desc, const std::source_location&) {
  if constexpr (cuda::arch::has_tma) {
    using Elem = std::remove_const_t<typename D::element_type>;
    constexpr int rank = D::rank;
    if (!cuda::copy_engine_takes(desc)) return;
    auto* claimed = reinterpret_cast<unsigned char**>(cuda::shared_region<cuda::descriptor_map_claim, 8>());
    if (threadIdx.x == 0) *claimed = cuda::claim_tensor_map();
    __syncthreads();
    unsigned char* map = *claimed;
    __syncthreads();  // every thread has read the claim before the next descriptor's
    if (!map) return;
    if (threadIdx.x < 32) {
      cuda::arch::tensor_map_fields f{};
      f.base = desc.base.address;
      f.rank = rank;
      f.element_bytes = static_cast<int>(sizeof(Elem));
      cuda::static_for<rank>([&](auto a) {
        constexpr int dim = decltype(a)::value;  // the copy engine's, counted from the innermost
        constexpr int axis = rank - 1 - dim;
        f.box[dim] = static_cast<std::uint32_t>(D::block_type::dim(axis));
        f.dims[dim] = static_cast<std::uint64_t>(desc.shape[axis]);
        if constexpr (dim > 0) f.strides[dim - 1] = static_cast<std::uint64_t>(desc.strides[axis]) * sizeof(Elem);
      });
      cuda::arch::tensor_map_build(cuda::shared_region<cuda::descriptor_map_staging, 128>(), map, f);
    }
    desc.state.copies = true;
    desc.state.map = map;
  }
}

template <class Elem, class Block, class D, class PE, class MaskE>
__device__ __forceinline__ auto descriptor_load(const D& desc, const int* coords, const PE& pe,
                                                const MaskE& in_shape, const std::source_location&) {
  using Plain = decltype(cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0))));
  if constexpr (cuda::arch::has_tma) {
    if (desc.state.copies)
      return cuda::copy_engine_load<Elem, Block, typename Plain::layout_type>(desc, coords);
  }
  return cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0)));
}

template <class Elem, class Block, class D, class PE, class V, class MaskE>
__device__ __forceinline__ void descriptor_store(const D&, const int*, const PE& pe, const V& values,
                                                 const MaskE& in_shape, const std::source_location&) {
  cuda::store<Elem, Block>(pe, values, in_shape);
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
