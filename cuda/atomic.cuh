// The atomics (tile/atomic.hpp) on the GPU: each active lane is one atomic instruction on global
// memory, issued by the thread that holds the first copy of the lane (a layout may replicate a
// tile across threads; one atomic per lane, as in the simulator). Where the hardware atomic
// computes what tile/atomic_ops.hpp says (atomicAdd on int32 and float32, atomicMax/atomicMin on
// int32, atomicExch, atomicCAS on the bits), it is used; float max and min loop atomicCAS around
// atomic_op's own `apply`, so NaN and -0 follow tl::maximum/minimum exactly.
//
// The old values land in the issuing thread; where the layout replicates the tile, they reach the
// other copies through shared memory (the exchange of cuda/convert.cuh). A masked-off lane issues
// nothing and its old value is 0.
#pragma once

#include "cuda/runtime.cuh"

#include <bit>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/memory.cuh"
#include "cuda/tile_storage.cuh"
#include "tile/atomic_ops.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// One atomic on *at; returns the element before it.
template <class Op, class Elem>
__device__ __forceinline__ Elem atomic_one(Elem* at, Elem v, Elem cmp) {
  if constexpr (std::is_same_v<Op, atomic_op::add>) {
    return atomicAdd(at, v);
  } else if constexpr (std::is_same_v<Op, atomic_op::xchg>) {
    return atomicExch(at, v);
  } else if constexpr (std::is_same_v<Elem, int> && std::is_same_v<Op, atomic_op::max>) {
    return atomicMax(at, v);
  } else if constexpr (std::is_same_v<Elem, int> && std::is_same_v<Op, atomic_op::min>) {
    return atomicMin(at, v);
  } else {
    // atomic_cas, and float max and min: compare-and-swap on the bits until no other thread
    // changed the element between the read and the swap.
    int* word = reinterpret_cast<int*>(at);
    if constexpr (std::is_same_v<Op, atomic_op::cas>) {
      const int old = atomicCAS(word, static_cast<int>(atomic_op::bits_of(cmp)),
                                static_cast<int>(atomic_op::bits_of(v)));
      return std::bit_cast<Elem>(old);
    } else {
      int seen = *reinterpret_cast<volatile int*>(word);
      for (;;) {
        const Elem before = std::bit_cast<Elem>(seen);
        const Elem after = Op::template apply<Elem>(before, v, cmp);
        const int after_bits = std::bit_cast<int>(after);
        if (after_bits == seen) return before;  // nothing to change: the element stays
        const int got = atomicCAS(word, seen, after_bits);
        if (got == seen) return before;
        seen = got;
      }
    }
  }
}

template <class Op, class Elem, class S, class PE, class C, class V, class MaskE>
__device__ __forceinline__ auto atomic(const PE& pe, const C& c, const V& v, const MaskE& m) {
  using Offsets = typename PE::offsets_type;
  using L = layouts::layout<
      result_layout_or<S, access_blocked_layout<S, Elem>, V, C, Offsets, MaskE>()>;
  const auto values = bind_for<L, S>(v);
  const auto cmps = bind_for<L, S>(c);
  const auto offsets = bind_for<L, S>(pe.offsets);
  const auto mask = bind_for<L, S>(m);
  using ValueS = shape_of_t<V>;
  using CmpS = shape_of_t<C>;
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<MaskE>;
  Elem* base = pe.base.address;

  basic_tile<Elem, S, L> out(detail::uninitialized_t{});
  const bool first_copy = holds_first_copy<L>();
  const auto thread = thread_coords<S, L>();
  static_for<L::registers>([&](auto k) {
    const auto p = position<S, L, k>(thread);
    Elem old{};
    if (first_copy && mask.eval(broadcast_pos<MaskS, S>(p))) {
      const int offset = static_cast<int>(offsets.eval(broadcast_pos<OffS, S>(p)));
      old = atomic_one<Op, Elem>(base + offset,
                                 op::cast_to<Elem>{}(values.eval(broadcast_pos<ValueS, S>(p))),
                                 op::cast_to<Elem>{}(cmps.eval(broadcast_pos<CmpS, S>(p))));
    }
    out.storage.regs[k] = old;
  });
  if constexpr ((L::value.replicated_lanes() | L::value.replicated_warps()) != 0) {
    // The copies that issued nothing take the old values from the first copies.
    Elem* buffer = shared_buffer<Elem, padded_size<S>>();
    __syncthreads();  // earlier readers of this buffer are done
    if (first_copy) {
      const int flat = thread_flat<L>();
      static_for<L::registers>([&](auto k) {
        buffer[padded(flat_of<L, k>(flat))] = out.storage.regs[k];
      });
    }
    __syncthreads();
    const int flat = thread_flat<L>();
    static_for<L::registers>([&](auto k) {
      out.storage.regs[k] = buffer[padded(flat_of<L, k>(flat))];
    });
  }
  return out;
}

}  // namespace cuda

namespace backend {

template <class Op, class Elem, class S, class PE, class C, class V, class MaskE>
__device__ __forceinline__ auto atomic(const PE& pe, const C& c, const V& v, const MaskE& m,
                                       const std::source_location&) {
  return cuda::atomic<Op, Elem, S>(pe, c, v, m);
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
