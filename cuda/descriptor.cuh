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
// and whose other strides are multiples of 16 bytes (below 2^40); only a descriptor of a `const`
// tensor gets a map (stores do not go through the copy engine, and a load of what the kernel
// writes is not worth the map a program builds). Any other descriptor, every
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
#include "cuda/ring.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/tensor_maps.cuh"
#include "cuda/tile_storage.cuh"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {

template <int Rank>
struct index_list;  // tile/descriptor.hpp

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

// Whether the copy engine can start a block at `coords`: an H200 stops the kernel (an illegal
// instruction) at a box whose innermost coordinate is not at a multiple of 16 bytes, while
// negative coordinates and boxes past the far edges are fine (measured:
// bench/probes/descriptor_parts_probe.cu). Any other block is loaded plainly.
template <class Elem, int Rank>
__device__ __forceinline__ bool copy_engine_starts_at(const int* coords) {
  return static_cast<long long>(coords[Rank - 1]) * static_cast<long long>(sizeof(Elem)) % 16 == 0;
}

// The block at `coords` through the copy engine, read in layout L. An operand block lands in
// wgmma's swizzle, as its map says (cuda/ring.cuh), and is read from there.
template <class Elem, class Block, class L, class D>
__device__ __forceinline__ auto copy_engine_load(const D& desc, const int* coords) {
  constexpr int rank = Block::rank;
  constexpr int bytes = static_cast<int>(Block::size * sizeof(Elem));
  constexpr bool operand = operand_block<Elem, Block>;
  constexpr int align = [] {
    if constexpr (operand) return operand_block_copies<Elem, Block>::swizzle::alignment;
    else return arena_scale;
  }();
  const Elem* block = reinterpret_cast<const Elem*>(
      shared_region<descriptor_block_buffer<Elem, Block>, bytes, align < arena_scale ? arena_scale : align>());
  auto* bar = reinterpret_cast<std::uint64_t*>(shared_region<descriptor_barrier, 8>());
  if (threadIdx.x == 0) {
    arch::mbarrier_init(bar, 1);
    if constexpr (operand) {
      operand_block_copies<Elem, Block>::issue(const_cast<Elem*>(block), desc.state.map, coords[0], coords[1], bar);
    } else {
      arch::mbarrier_arrive_expect_tx(bar, bytes);
      int reversed[rank];  // the copy engine counts dimensions from the innermost
      static_for<rank>([&](auto a) { reversed[a] = coords[rank - 1 - a]; });
      arch::tma_load<rank>(const_cast<Elem*>(block), desc.state.map, reversed, bar);
    }
  }
  __syncthreads();  // the barrier is initialized before anyone waits on it
  arch::mbarrier_wait_parity(bar, 0);

  basic_tile<Elem, Block, L> out(detail::uninitialized_t{});
  if constexpr (operand) {
    operand_block_copies<Elem, Block>::template read<L>(out, block);
  } else {
    constexpr int V = 1 << vector_bits<Elem, L>();
    const int thread = thread_flat<L>();
    static_for<L::registers / V>([&](auto group) {
      constexpr int first = decltype(group)::value * V;
      const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(block + flat_of<L, first>(thread));
      static_for<V>([&](auto j) { out.storage.regs[first + j] = chunk.v[j]; });
    });
  }
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
  if constexpr (cuda::arch::has_tma && std::is_const_v<typename D::element_type>) {
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
      // An operand block's box is one panel of its swizzle (cuda/ring.cuh).
      if constexpr (cuda::operand_block<Elem, typename D::block_type>) {
        using copies = cuda::operand_block_copies<Elem, typename D::block_type>;
        f.box[0] = static_cast<std::uint32_t>(copies::panel_columns);
        f.swizzle_bytes = copies::swizzle::row_bytes;
      }
      cuda::arch::tensor_map_build(cuda::shared_region<cuda::descriptor_map_staging, 128>(), map, f);
    }
    desc.state.copies = true;
    desc.state.map = map;
  }
}

// A load of an operand block of a const tensor, one of whose coordinates is the index of a
// pipelined range, goes through that range's ring (cuda/ring.cuh); any other through the copy
// engine where the descriptor has a map, else as the masked load it means.
template <class Elem, class Block, class D, class PE, class MaskE>
__device__ __forceinline__ auto descriptor_load(const D& desc, const index_list<D::rank>& coords, const PE& pe,
                                                const MaskE& in_shape, const std::source_location&) {
  using Plain = decltype(cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0))));
  if constexpr (cuda::arch::has_tma && cuda::operand_block<Elem, Block> &&
                std::is_const_v<typename D::element_type>) {
    // The slot of the range's ring (null: load plainly), by the range's stages, which the list
    // keeps as a value: the same in every thread, and a constant wherever the range is in sight
    // of the compiler (tensor_descriptor::load is always inlined), so that one case remains.
    const Elem* slot = nullptr;
    int* note = nullptr;
    int iteration = -1;
    auto ring = [&]<int S>(std::integral_constant<int, S>) {
      auto* range = static_cast<range_state<S>*>(coords.range);
      slot = cuda::ring_slot<S, Elem, Block>(range, desc, coords);
      note = &range->pipeline.sites.ring_dot_iteration;
      iteration = range->pipeline.sites.iteration;
    };
    switch (coords.range != nullptr ? coords.range_stages : 1) {
      case 2: ring(std::integral_constant<int, 2>{}); break;
      case 3: ring(std::integral_constant<int, 3>{}); break;
      case 4: ring(std::integral_constant<int, 4>{}); break;
      case 5: ring(std::integral_constant<int, 5>{}); break;
      case 6: ring(std::integral_constant<int, 6>{}); break;
      case 7: ring(std::integral_constant<int, 7>{}); break;
      case 8: ring(std::integral_constant<int, 8>{}); break;
      default: {
        // Not in a pipelined range: one copy (or the plain load), as a tile with no slot.
        using Tile = typename cuda::ring_tile<Elem, Block, PE, MaskE>::type;
        Tile out(detail::uninitialized_t{});
        const auto t = desc.state.copies && cuda::copy_engine_starts_at<Elem, D::rank>(coords.v)
                           ? cuda::copy_engine_load<Elem, Block, typename Plain::layout_type>(desc, coords.v)
                                         : cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0)));
        cuda::static_for<Plain::layout_type::registers>([&](auto k) { out.storage.regs[k] = t.storage.regs[k]; });
        return out;
      }
    }
    return cuda::ring_tile_of<Elem, Block>(slot, pe, in_shape, note, iteration);
  } else {
    if constexpr (cuda::arch::has_tma) {
      if (desc.state.copies && cuda::copy_engine_starts_at<Elem, D::rank>(coords.v))
        return cuda::copy_engine_load<Elem, Block, typename Plain::layout_type>(desc, coords.v);
    }
    return cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0)));
  }
}

template <class Elem, class Block, class D, class PE, class V, class MaskE>
__device__ __forceinline__ void descriptor_store(const D&, const index_list<D::rank>&, const PE& pe, const V& values,
                                                 const MaskE& in_shape, const std::source_location&) {
  cuda::store<Elem, Block>(pe, values, in_shape);
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
