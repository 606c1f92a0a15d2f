// A data tile on the GPU: a fixed number of registers per thread, sized at compile time from the
// tile's layout, and the positions of the elements those registers hold.
//
// Positions split into a per-thread part, computed once from threadIdx (the lane and warp bits
// of the layout), and a per-register part known at compile time: an element's coordinate along
// an axis is thread_coords.c[axis] + register_coords<K>.c[axis], with no carries since the two
// parts set different bits. Every loop over a thread's registers is unrolled at compile time
// (static_for), so register K is always a constant and the arrays stay in registers.
#pragma once

#include "cuda/runtime.cuh"

#include <new>
#include <type_traits>
#include <utility>

#include "cuda/layout.cuh"
#include "tile/config.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

inline constexpr int num_warps = TL_NUM_WARPS;
static_assert(num_warps >= 1 && num_warps <= 32 && (num_warps & (num_warps - 1)) == 0,
              "tl (GPU backend): num_warps must be 1, 2, 4, 8, 16 or 32");
inline constexpr int warp_bits = layouts::log2_exact(num_warps);
inline constexpr int threads = 32 * num_warps;

// Registers one tile may take in each thread. A thread has 255; a kernel holds several tiles.
inline constexpr int max_registers_per_tile = 128;

// A compile-time value as a type, so that unrolled lambdas read it as a constant instead of
// capturing (and so materializing) a local copy.
template <auto V>
struct constant {
  static constexpr auto value = V;
};

// Calls f(std::integral_constant<int, K>{}) for K = 0 .. N-1, unrolled at compile time.
template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... K>(std::integer_sequence<int, K...>) {
    (f(std::integral_constant<int, K>{}), ...);
  }(std::make_integer_sequence<int, N>{});
}

template <class S>
constexpr layouts::bit_shape<S::rank> bits_of() {
  layouts::bit_shape<S::rank> b;
  for (int a = 0; a < S::rank; ++a) b.log2_dims[a] = layouts::log2_exact(S::dim(a));
  return b;
}

// The bits of S as a static constant: usable inside the unrolled lambdas below without
// capturing (and so materializing) a local copy.
template <class S>
struct shape_bits {
  static constexpr layouts::bit_shape<S::rank> value = bits_of<S>();
  template <int Axis>
  static constexpr int low = value.low_bit(Axis);
  template <int Axis>
  static constexpr int mask = (1 << value.log2_dims[Axis]) - 1;
};

template <class S>
using blocked_layout = layouts::layout<layouts::blocked(bits_of<S>(), warp_bits)>;
// The blocked layout of a load or store of Elem: 16 bytes of consecutive elements per thread
// (8 for 16-bit elements, 4 otherwise).
template <class Elem>
inline constexpr int access_vector_bits = sizeof(Elem) == 2 ? 3 : 2;
template <class S, class Elem>
using access_blocked_layout =
    layouts::layout<layouts::blocked(bits_of<S>(), warp_bits, access_vector_bits<Elem>)>;
template <class S>
using declared_layout = layouts::layout<layouts::declared(bits_of<S>(), warp_bits)>;

// A tile's registers in one thread.
template <class T, class S, class L>
struct registers {
  static_assert(L::value.out_bits == bits_of<S>().total(),
                "tl (GPU backend): internal error: a layout for another shape");
  static_assert(L::registers <= max_registers_per_tile,
                "tl (GPU backend): this tile needs more than 128 registers in every thread (its "
                "elements divided by 32 * num_warps threads, more where a layout repeats them). "
                "Raise the kernel's num_warps, or use smaller blocks.");
  T regs[L::registers];
};

// The layout of a tile that a pipelined range's load also left in shared memory, in the swizzled
// rows that tl::dot reads its operands from (cuda/operand_stages.cuh): the same layout L, marked,
// so that the tile's storage carries where that copy is. Source is the load itself (its pointers,
// mask and `other`, which hold no data tile: lazy nodes and scalars by value), where the tile may
// be loaded again when it is used (a load through a tl::ptr<const T>), else void.
template <class L, class Source = void>
struct staged_layout : L {};
template <class L>
inline constexpr bool is_staged_layout = false;
template <class L, class Source>
inline constexpr bool is_staged_layout<staged_layout<L, Source>> = true;

// The layout of tl::trans(x) of such a tile x ([N, K] as loaded, seen as [K, N]): L is x's layout
// relabelled, as for any transpose, and the storage carries x's copy in shared memory and x's
// load (which loads [N, K] again), so that a dot of it as b reads x's rows there: they are the
// rows of b^T that dot stores such a b in (cuda/mma.cuh). Not a staged_layout: as `a`, or
// anywhere else, it is the registers it holds.
template <class L, class Source = void>
struct staged_transposed_layout : L {};
template <class L>
inline constexpr bool is_staged_transposed_layout = false;
template <class L, class Source>
inline constexpr bool is_staged_transposed_layout<staged_transposed_layout<L, Source>> = true;

// The load a staged layout keeps.
template <class L>
struct staged_source {
  using type = void;
};
template <class L, class Source>
struct staged_source<staged_layout<L, Source>> {
  using type = Source;
};

// A load to run again, or nothing: the union leaves Source (expression nodes, which have no
// default constructor) unconstructed in a tile no site made. Its bytes are sizeof(Source), so no
// node may be [[no_unique_address]] (tile/expr.hpp).
template <class Source>
struct load_again {
  static_assert(std::is_trivially_copyable_v<Source> && std::is_trivially_destructible_v<Source>,
                "tl (GPU backend): internal error: a load kept for later holds more than values");
  union {
    char none;
    Source kept;
  };
  bool set = false;
  __device__ __forceinline__ load_again() : none(0) {}
  __device__ __forceinline__ void keep(const Source& source) {
    ::new (static_cast<void*>(&kept)) Source(source);
    set = true;
  }
  __device__ __forceinline__ const Source& source() const { return kept; }
};
struct no_load_again {
  static constexpr bool set = false;
};

// The registers of a staged tile, its copy in shared memory (nullptr when there is none), and
// the load it may be loaded again from.
//
// The copy is only good until its site copies a later iteration into the same slot, which can
// only happen after the variable the load initialized has gone out of scope (a tile declared in
// the loop's body) or through a copy of the tile: so only the tile the load initialized (and a
// move of it, as a return moves it) keeps the pointer; a copy, or an assignment, drops it, and a
// `dot` of a tile without the pointer stages it from its registers as any other.
//
// The load kept likewise: a `dot` of the tile the load initialized, where the site copied nothing
// (it loaded plainly), loads it again where it stages it, from memory nothing stores to during
// the kernel (a tl::ptr<const T>), so the values are the same. Then no path keeps the tile's
// registers live from the load to the `dot`, and registers nothing else reads are not loaded at
// all: a staged operand tile costs the kernel no registers.
template <class T, class S, class L, class Source>
struct staged_registers : registers<T, S, L> {
  const void* staged = nullptr;
  std::conditional_t<std::is_void_v<Source>, no_load_again, load_again<Source>> again;
  staged_registers() = default;
  __device__ __forceinline__ staged_registers(const staged_registers& o) : registers<T, S, L>(o) {}
  __device__ __forceinline__ staged_registers(staged_registers&& o)
      : registers<T, S, L>(o), staged(o.staged), again(o.again) {}
  __device__ __forceinline__ staged_registers& operator=(const staged_registers& o) {
    registers<T, S, L>::operator=(o);
    staged = nullptr;
    again = {};
    return *this;
  }
  __device__ __forceinline__ staged_registers& operator=(staged_registers&& o) {
    registers<T, S, L>::operator=(o);
    staged = nullptr;
    again = {};
    return *this;
  }
};

template <class T, class S, class L>
struct storage_of {
  using type = registers<T, S, L>;
};
template <class T, class S, class L, class Source>
struct storage_of<T, S, staged_layout<L, Source>> {
  using type = staged_registers<T, S, staged_layout<L, Source>, Source>;
};
template <class T, class S, class L, class Source>
struct storage_of<T, S, staged_transposed_layout<L, Source>> {
  using type = staged_registers<T, S, staged_transposed_layout<L, Source>, Source>;
};

// threadIdx.x, read where it is used: what code computes from it is then not hoisted out of a
// loop into registers, for code whose registers cost more than its few instructions.
__device__ __forceinline__ int thread_index_here() {
#if defined(TL_EMULATED_GPU)
  return static_cast<int>(threadIdx.x);
#else
  int index;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(index));
  return index;
#endif
}

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & 31; }
__device__ __forceinline__ int warp_id() { return static_cast<int>(threadIdx.x) >> 5; }

// The flat-index bits this thread's lane and warp contribute in layout L.
template <class L>
__device__ __forceinline__ int thread_flat() {
  const int lane = lane_id(), warp = warp_id();
  int flat = 0;
  static_for<layouts::lane_bits>([&](auto i) {
    constexpr int bit = decltype(i)::value, out = L::value.lane[bit];
    if constexpr (out >= 0) flat |= ((lane >> bit) & 1) << out;
  });
  static_for<warp_bits>([&](auto i) {
    constexpr int bit = decltype(i)::value, out = L::value.warp[bit];
    if constexpr (out >= 0) flat |= ((warp >> bit) & 1) << out;
  });
  return flat;
}

// Whether this thread holds the first copy of its elements (all replicated lane and warp bits
// clear): the one that writes them out, to memory or to shared memory.
template <class L>
__device__ __forceinline__ bool holds_first_copy() {
  constexpr unsigned lanes = L::value.replicated_lanes(), warps = L::value.replicated_warps();
  return (static_cast<unsigned>(lane_id()) & lanes) == 0 &&
         (static_cast<unsigned>(warp_id()) & warps) == 0;
}

// Coordinates of a flat index in S.
template <class S>
__device__ __forceinline__ pos<S::rank> coords_of(int flat, int slot) {
  pos<S::rank> p{};
  p.slot = slot;
  static_for<S::rank>([&](auto a) {
    constexpr int axis = decltype(a)::value;
    p.c[axis] = (flat >> shape_bits<S>::template low<axis>) & shape_bits<S>::template mask<axis>;
  });
  return p;
}

// The per-thread part of every position in layout L.
template <class S, class L>
__device__ __forceinline__ pos<S::rank> thread_coords() {
  return coords_of<S>(thread_flat<L>(), -1);
}

// The position of register K of this thread, given its per-thread part.
template <class S, class L, int K>
__device__ __forceinline__ pos<S::rank> position(const pos<S::rank>& thread) {
  pos<S::rank> p = thread;
  p.slot = K;
  static_for<S::rank>([&](auto a) {
    constexpr int axis = decltype(a)::value;
    constexpr int part = static_cast<int>((L::value.register_bits_of(K) >> shape_bits<S>::template low<axis>) &
                                          shape_bits<S>::template mask<axis>);
    p.c[axis] += part;
  });
  return p;
}

// The flat index of register K of this thread.
template <class L, int K>
__device__ __forceinline__ int flat_of(int thread_flat_bits) {
  return thread_flat_bits | static_cast<int>(L::value.register_bits_of(K));
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
