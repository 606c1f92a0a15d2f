// The CUDA backend of `tl`, the hooks of tile/ops.hpp: one thread block runs one program; a data
// tile is spread over the block's threads in a blocked layout, each thread holding its elements
// in registers.
//
// This first GPU backend covers elementwise kernels (loads, stores, arithmetic, masks) of any
// rank. Reductions, dot and broadcasting a data tile across threads need layouts that move values
// between threads; kernels that use them are checked in the simulator and say so on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <source_location>
#include <type_traits>

#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

// Threads per program for now: every GPU kernel runs 4 warps (Triton's default num_warps).
inline constexpr int warps_per_program = 4;
inline constexpr int threads_per_program = 32 * warps_per_program;

namespace backend {
template <class T>
struct address_of {
  using type = T*;
  TL_FN static void advance(T*& a, long long elements) { a += elements; }
};
}  // namespace backend

namespace layouts {

// Triton's blocked layout, simplified: the tile's row-major elements are cut into vectors of
// `vector` consecutive elements along the last axis (16 bytes of float), and vector c belongs to
// thread c % threads_per_program. A tile with fewer vectors than threads is replicated: thread t
// holds vector t % vectors, and only the first `vectors` threads store it.
template <class S>
struct blocked {
  static constexpr int last_dim = S::rank > 0 ? S::dims[S::rank > 0 ? S::rank - 1 : 0] : 1;
  static constexpr int vector = last_dim < 4 ? last_dim : 4;
  static constexpr long long vectors = S::size / vector;
  static constexpr bool replicated = vectors < threads_per_program;
  static constexpr int vectors_per_thread =
      replicated ? 1 : static_cast<int>(vectors / threads_per_program);
  static constexpr int slots = vectors_per_thread * vector;

  // The row-major element that `thread` holds in register `slot`.
  __device__ static long long element(int thread, int slot) {
    const int v = slot / vector, lane = slot % vector;
    const long long c = replicated ? thread % vectors : 1LL * v * threads_per_program + thread;
    return c * vector + lane;
  }
  // Whether this thread's copy is the one that gets stored.
  __device__ static bool owns(int thread) { return !replicated || thread < vectors; }
};

}  // namespace layouts

namespace detail {
using layouts::blocked;

// True when evaluating E would need a data tile's values at another shape than its own: on the
// GPU that needs values from other threads, which this backend does not move yet.
template <class E, class Target>
struct broadcasts_data : std::bool_constant<E::has_data && !std::is_same_v<typename E::shape_type, Target>> {};

template <class E>
struct needs_exchange : std::false_type {};
template <class Op, class A, class B>
struct needs_exchange<binary_expr<Op, A, B>>
    : std::bool_constant<
          broadcasts_data<std::remove_cvref_t<A>, typename binary_expr<Op, A, B>::shape_type>::value ||
          broadcasts_data<std::remove_cvref_t<B>, typename binary_expr<Op, A, B>::shape_type>::value ||
          needs_exchange<std::remove_cvref_t<A>>::value || needs_exchange<std::remove_cvref_t<B>>::value> {};
template <class Op, class A>
struct needs_exchange<unary_expr<Op, A>> : needs_exchange<std::remove_cvref_t<A>> {};
template <class T, class A>
struct needs_exchange<cast_expr<T, A>> : needs_exchange<std::remove_cvref_t<A>> {};
template <int Axis, class A>
struct needs_exchange<expand_expr<Axis, A>> : std::bool_constant<std::remove_cvref_t<A>::has_data> {};
template <class C, class A, class B>
struct needs_exchange<where_expr<C, A, B>>
    : std::bool_constant<
          broadcasts_data<std::remove_cvref_t<C>, typename where_expr<C, A, B>::shape_type>::value ||
          broadcasts_data<std::remove_cvref_t<A>, typename where_expr<C, A, B>::shape_type>::value ||
          broadcasts_data<std::remove_cvref_t<B>, typename where_expr<C, A, B>::shape_type>::value ||
          needs_exchange<std::remove_cvref_t<C>>::value || needs_exchange<std::remove_cvref_t<A>>::value ||
          needs_exchange<std::remove_cvref_t<B>>::value> {};

template <class E, class Target>
inline constexpr bool gpu_evaluable =
    !needs_exchange<std::remove_cvref_t<E>>::value &&
    !broadcasts_data<std::remove_cvref_t<E>, Target>::value;

template <class>
inline constexpr bool not_on_gpu_yet = false;

}  // namespace detail

namespace backend {

template <class S>
struct declared_layout {
  using type = layouts::blocked<S>;
};
template <class T, class S>
using data_tile = basic_tile<T, S, layouts::blocked<S>>;

inline constexpr bool tracks_poison = false;

template <class T>
TL_FN constexpr T no_other_value() {
  return T{};
}

// A tile of values, spread over the program's threads: each holds `slots` of them.
template <class T, class S, class Layout>
struct storage {
  T regs[Layout::slots];
};

template <class T, class S, class L>
__device__ void leave_unset(basic_tile<T, S, L>&) {}

template <class T, class S, class L>
__device__ void fill(basic_tile<T, S, L>& t, T v) {
  TL_UNROLL
  for (int k = 0; k < L::slots; ++k) t.storage.regs[k] = v;
}

template <class T, class S, class L, class E>
__device__ void assign(basic_tile<T, S, L>& t, const E& e) {
  using ES = shape_of_t<E>;
  static_assert(detail::gpu_evaluable<E, S>,
                "tl (GPU backend): this kernel broadcasts a data tile (such as x.col() of a "
                "loaded or reduced tile) across threads, which the GPU backend cannot do yet. "
                "It runs in the simulator.");
  const int thread = static_cast<int>(threadIdx.x);
  TL_UNROLL
  for (int k = 0; k < L::slots; ++k) {
    const auto p = pos_of<S>(L::element(thread, k), k);
    t.storage.regs[k] = op::cast_to<T>{}(e.eval(broadcast_pos<ES, S>(p)));
  }
}

template <class T, class S, class L, int R>
__device__ lane_t<T> lane_value(const basic_tile<T, S, L>& t, const pos<R>& p) {
  return t.storage.regs[p.slot];
}
template <class T, class S, class L, int R>
__device__ bool lane_poison(const basic_tile<T, S, L>&, const pos<R>&) {
  return false;
}

template <class T, class S, class L>
__device__ T scalar_value(const basic_tile<T, S, L>& t) {
  return t.storage.regs[0];
}

template <class E>
__device__ auto materialize(const E& e) {
  data_tile<value_of_t<E>, shape_of_t<E>> out(detail::uninitialized_t{});
  assign(out, e);
  return out;
}

__device__ inline int program_id(int axis, const std::source_location&) {
  return axis == 0 ? static_cast<int>(blockIdx.x)
                   : axis == 1 ? static_cast<int>(blockIdx.y) : static_cast<int>(blockIdx.z);
}
__device__ inline int num_programs(int axis, const std::source_location&) {
  return axis == 0 ? static_cast<int>(gridDim.x)
                   : axis == 1 ? static_cast<int>(gridDim.y) : static_cast<int>(gridDim.z);
}

}  // namespace backend

namespace detail {
template <class T, int N>
struct alignas(sizeof(T) * N) vec {
  T v[N];
};

// Evaluates, for `thread`'s vector `v` of a tile of shape S, each lane's mask and offset, and
// whether the vector can move as one 16-byte access: all lanes on, offsets consecutive, aligned.
template <class S, class PE, class MaskE>
struct vector_access {
  using layout = blocked<S>;
  static constexpr int n = layout::vector;
  bool on[n];
  index_t offset[n];
  bool whole;

  __device__ vector_access(const PE& pe, const MaskE& mask, int thread, int v) {
    using MS = shape_of_t<MaskE>;
    using OS = typename PE::shape_type;
    whole = true;
    TL_UNROLL
    for (int lane = 0; lane < n; ++lane) {
      const int slot = v * n + lane;
      const auto p = pos_of<S>(layout::element(thread, slot), slot);
      on[lane] = mask.eval(broadcast_pos<MS, S>(p));
      offset[lane] = pe.offsets.eval(broadcast_pos<OS, S>(p));
      whole = whole && on[lane] && offset[lane] == offset[0] + lane;
    }
    using T = std::remove_const_t<typename PE::element_type>;
    whole = whole && n * sizeof(T) == 16 &&
            reinterpret_cast<std::uintptr_t>(pe.base.address + offset[0]) % 16 == 0;
  }
};
}  // namespace detail

namespace backend {

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
__device__ auto load(const PE& pe, const MaskE& m, const OtherE& o, const std::source_location&) {
  using OS = shape_of_t<OtherE>;
  using layout = detail::blocked<S>;
  static_assert(detail::gpu_evaluable<typename PE::offsets_type, S>,
                "tl (GPU backend): tl::load's pointer offsets use a data tile (a loaded or reduced "
                "tile) at a larger shape than its own, which needs values from other threads: the "
                "GPU backend cannot do that yet. It runs in the simulator.");
  static_assert(detail::gpu_evaluable<decltype(m), S>,
                "tl (GPU backend): tl::load's mask uses a data tile (a loaded or reduced tile) at "
                "a larger shape than its own, which needs values from other threads: the GPU "
                "backend cannot do that yet. It runs in the simulator.");
  static_assert(detail::gpu_evaluable<decltype(o), S>,
                "tl (GPU backend): tl::load's `other` uses a data tile (a loaded or reduced tile) "
                "at a larger shape than its own, which needs values from other threads: the GPU "
                "backend cannot do that yet. It runs in the simulator.");

  data_tile<Elem, S> out(detail::uninitialized_t{});
  auto& regs = out.storage.regs;
  const int thread = static_cast<int>(threadIdx.x);
  TL_UNROLL
  for (int v = 0; v < layout::vectors_per_thread; ++v) {
    detail::vector_access<S, PE, MaskE> access(pe, m, thread, v);
    constexpr int n = layout::vector;
    if (access.whole) {
      const auto chunk =
          *reinterpret_cast<const detail::vec<Elem, n>*>(pe.base.address + access.offset[0]);
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) regs[v * n + lane] = chunk.v[lane];
    } else {
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) {
        const int slot = v * n + lane;
        if (access.on[lane]) {
          regs[slot] = pe.base.address[access.offset[lane]];
        } else {
          const auto p = pos_of<S>(layout::element(thread, slot), slot);
          regs[slot] = static_cast<Elem>(o.eval(broadcast_pos<OS, S>(p)));
        }
      }
    }
  }
  return out;
}

template <class Elem, class S, class PE, class V, class MaskE>
__device__ void store(const PE& pe, const V& values, const MaskE& m, const std::source_location&) {
  using layout = detail::blocked<S>;
  static_assert(detail::gpu_evaluable<typename PE::offsets_type, S>,
                "tl (GPU backend): tl::store's pointer offsets use a data tile (a loaded or "
                "reduced tile) at a larger shape than its own, which needs values from other "
                "threads: the GPU backend cannot do that yet. It runs in the simulator.");
  static_assert(detail::gpu_evaluable<decltype(m), S>,
                "tl (GPU backend): tl::store's mask uses a data tile (a loaded or reduced tile) at "
                "a larger shape than its own, which needs values from other threads: the GPU "
                "backend cannot do that yet. It runs in the simulator.");
  // Values in the pointers' layout; a data tile of that shape is used as it is.
  const data_tile<Elem, S> data(values);

  const int thread = static_cast<int>(threadIdx.x);
  if (!layout::owns(thread)) return;
  TL_UNROLL
  for (int v = 0; v < layout::vectors_per_thread; ++v) {
    detail::vector_access<S, PE, MaskE> access(pe, m, thread, v);
    constexpr int n = layout::vector;
    if (access.whole) {
      detail::vec<Elem, n> chunk;
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) chunk.v[lane] = data.storage.regs[v * n + lane];
      *reinterpret_cast<detail::vec<Elem, n>*>(pe.base.address + access.offset[0]) = chunk;
    } else {
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane)
        if (access.on[lane]) pe.base.address[access.offset[lane]] = data.storage.regs[v * n + lane];
    }
  }
}

// Not on the GPU yet: these compile only in kernels that are never instantiated for the GPU.
template <class Op, int Axis, bool Keep, class E>
__device__ auto reduce(const E& x, const std::source_location&) {
  static_assert(detail::not_on_gpu_yet<E>,
                "tl::sum, tl::max and tl::min are not on the GPU backend yet: this kernel runs in "
                "the simulator only");
  return x;
}
template <class Op, class E>
__device__ auto reduce_all(const E& x, const std::source_location&) {
  static_assert(detail::not_on_gpu_yet<E>,
                "tl::sum, tl::max and tl::min are not on the GPU backend yet: this kernel runs in "
                "the simulator only");
  return x;
}
template <int M, int N, int K, class A, class B, class C>
__device__ auto dot(const A& a, const B&, const C&, const std::source_location&) {
  static_assert(detail::not_on_gpu_yet<A>,
                "tl::dot is not on the GPU backend yet: this kernel runs in the simulator only");
  return a;
}

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
