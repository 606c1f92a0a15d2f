// load and store on the GPU: each thread moves the elements its registers hold.
//
// The offsets, mask and `other` (and a store's values) are evaluated in the access's layout: that
// of its first data operand of the full shape, else the blocked layout of the element type, whose
// first registers hold 16 bytes of consecutive elements of the last dimension (4 floats or ints,
// 8 halves). Where a layout puts such a vector in one
// thread, the access moves it as one 16-byte instruction when every lane of the vector is on, the
// offsets are consecutive and the address is aligned (checked at run time: masks and strides
// are run-time values); otherwise lane by lane, predicated, so a masked-off lane never touches
// memory. A store is issued only by the thread that holds the first copy of an element (a layout
// may replicate a tile across threads); the others skip it without leaving the operation, so no
// thread returns early from anything that could hold a barrier.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <type_traits>

#include "cuda/evaluate.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

template <class T, int N>
struct alignas(sizeof(T) * N) vector {
  T v[N];
};

// log2 of the elements of a vector access in layout L: the leading registers that hold
// consecutive flat indices 0, 1, 2, 3, up to 16 bytes.
template <class Elem, class L>
constexpr int vector_bits() {
  int limit = 0;
  while ((static_cast<int>(sizeof(Elem)) << (limit + 1)) <= 16) ++limit;
  int v = 0;
  while (v < limit && v < L::value.reg_bits && L::value.reg[v] == v) ++v;
  return v;
}

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
__device__ __forceinline__ auto load(const PE& pe, const MaskE& m, const OtherE& o) {
  using Offsets = typename PE::offsets_type;
  using L = layouts::layout<result_layout_or<S, access_blocked_layout<S, Elem>, Offsets, MaskE, OtherE>()>;
  const auto offsets = bind_for<L, S>(pe.offsets);
  const auto mask = bind_for<L, S>(m);
  const auto other = bind_for<L, S>(o);
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<MaskE>;
  using OtherS = shape_of_t<OtherE>;
  constexpr int V = 1 << vector_bits<Elem, L>();
  const Elem* base = pe.base.address;

  basic_tile<Elem, S, L> out(detail::uninitialized_t{});
  const auto thread = thread_coords<S, L>();
  static_for<L::registers / V>([&](auto group) {
    bool on[V];
    int offset[V];
    static_for<V>([&](auto j) {
      const auto p = position<S, L, group * V + j>(thread);
      on[j] = mask.eval(broadcast_pos<MaskS, S>(p));
      offset[j] = static_cast<int>(offsets.eval(broadcast_pos<OffS, S>(p)));
    });
    if constexpr (V > 1) {
      bool whole = true;
      static_for<V>([&](auto j) { whole = whole && on[j] && offset[j] == offset[0] + j; });
      whole = whole && reinterpret_cast<std::uintptr_t>(base + offset[0]) % (V * sizeof(Elem)) == 0;
      if (whole) {
        const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(base + offset[0]);
        static_for<V>([&](auto j) { out.storage.regs[group * V + j] = chunk.v[j]; });
        return;
      }
    }
    static_for<V>([&](auto j) {
      constexpr int k = group * V + j;
      if (on[j]) {
        out.storage.regs[k] = base[offset[j]];
      } else {
        const auto p = position<S, L, k>(thread);
        out.storage.regs[k] = op::cast_to<Elem>{}(other.eval(broadcast_pos<OtherS, S>(p)));
      }
    });
  });
  return out;
}

template <class Elem, class S, class PE, class V, class MaskE>
__device__ __forceinline__ void store(const PE& pe, const V& v, const MaskE& m) {
  using Offsets = typename PE::offsets_type;
  using L = layouts::layout<result_layout_or<S, access_blocked_layout<S, Elem>, V, Offsets, MaskE>()>;
  const auto values = bind_for<L, S>(v);
  const auto offsets = bind_for<L, S>(pe.offsets);
  const auto mask = bind_for<L, S>(m);
  using ValueS = shape_of_t<V>;
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<MaskE>;
  constexpr int W = 1 << vector_bits<Elem, L>();
  Elem* base = pe.base.address;

  const bool first_copy = holds_first_copy<L>();
  const auto thread = thread_coords<S, L>();
  static_for<L::registers / W>([&](auto group) {
    bool on[W];
    int offset[W];
    Elem value[W];
    static_for<W>([&](auto j) {
      const auto p = position<S, L, group * W + j>(thread);
      on[j] = first_copy && mask.eval(broadcast_pos<MaskS, S>(p));
      offset[j] = static_cast<int>(offsets.eval(broadcast_pos<OffS, S>(p)));
      value[j] = op::cast_to<Elem>{}(values.eval(broadcast_pos<ValueS, S>(p)));
    });
    if constexpr (W > 1) {
      bool whole = true;
      static_for<W>([&](auto j) { whole = whole && on[j] && offset[j] == offset[0] + j; });
      whole = whole && reinterpret_cast<std::uintptr_t>(base + offset[0]) % (W * sizeof(Elem)) == 0;
      if (whole) {
        vector<Elem, W> chunk;
        static_for<W>([&](auto j) { chunk.v[j] = value[j]; });
        *reinterpret_cast<vector<Elem, W>*>(base + offset[0]) = chunk;
        return;
      }
    }
    static_for<W>([&](auto j) {
      if (on[j]) base[offset[j]] = value[j];
    });
  });
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
