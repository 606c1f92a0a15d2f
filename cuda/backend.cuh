// The CUDA backend of `tl`: one thread block runs one program; a data tile is spread over the
// block's threads in a blocked layout, each thread holding its elements in registers.
//
// This first GPU backend covers elementwise kernels (loads, stores, arithmetic, masks) of any
// rank. Reductions, dot and broadcasting a data tile across threads need layouts that move values
// between threads; kernels that use them are checked in the simulator and say so on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

// Threads per program for now: every GPU kernel runs 4 warps (Triton's default num_warps).
inline constexpr int warps_per_program = 4;
inline constexpr int threads_per_program = 32 * warps_per_program;

template <class T>
struct ptr {
  using element_type = T;
  T* address = nullptr;

  TL_FN void advance(long long elements) { address += elements; }
};

template <class T>
struct is_ptr<ptr<T>> : std::true_type {};

namespace detail {

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

struct uninitialized_t {};

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

// A tile of values, spread over the program's threads.
template <class T, int... Dims>
class tile : public expr_base<tile<T, Dims...>> {
 public:
  using value_type = T;
  using shape_type = shape<Dims...>;
  using layout = detail::blocked<shape_type>;
  static constexpr bool has_data = true;
  static constexpr bool may_poison = false;

  tile() = default;
  __device__ explicit tile(detail::uninitialized_t) {}

  template <class E>
    requires is_expr_v<E>
  __device__ tile(const E& e) {
    static_assert(broadcasts_to<shape_of_t<E>, shape_type>,
                  "tl::tile: the expression's shape does not broadcast to this tile's shape");
    assign(e);
  }
  template <class S>
    requires is_scalar_v<S>
  __device__ tile(S s) {
    TL_UNROLL
    for (int k = 0; k < layout::slots; ++k) regs[k] = static_cast<T>(s);
  }
  template <class E>
    requires(is_expr_v<E> && !std::is_same_v<std::remove_cvref_t<E>, tile>) || is_scalar_v<E>
  __device__ tile& operator=(const E& e) {
    tile fresh(e);
    *this = fresh;
    return *this;
  }

  __device__ lane_t<T> eval(const pos<shape_type::rank>& p) const { return regs[p.slot]; }
  __device__ bool poison(const pos<shape_type::rank>&) const { return false; }

  template <class E>
  __device__ void assign(const E& e) {
    using ES = shape_of_t<E>;
    static_assert(detail::gpu_evaluable<E, shape_type>,
                  "tl (GPU backend): this kernel broadcasts a data tile (such as x.col() of a "
                  "loaded or reduced tile) across threads, which the GPU backend cannot do yet. "
                  "It runs in the simulator.");
    const int thread = static_cast<int>(threadIdx.x);
    TL_UNROLL
    for (int k = 0; k < layout::slots; ++k) {
      const auto p = pos_of<shape_type>(layout::element(thread, k), k);
      regs[k] = static_cast<T>(e.eval(broadcast_pos<ES, shape_type>(p)));
    }
  }

  T regs[layout::slots];
};

template <class E>
__device__ auto materialize(const E& e) {
  tile_for<value_of_t<E>, shape_of_t<E>> out(detail::uninitialized_t{});
  out.assign(e);
  return out;
}

__device__ inline int program_id(int axis) {
  return axis == 0 ? static_cast<int>(blockIdx.x)
                   : axis == 1 ? static_cast<int>(blockIdx.y) : static_cast<int>(blockIdx.z);
}
__device__ inline int num_programs(int axis) {
  return axis == 0 ? static_cast<int>(gridDim.x)
                   : axis == 1 ? static_cast<int>(gridDim.y) : static_cast<int>(gridDim.z);
}

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

template <class P, class M = detail::no_mask, class O = detail::no_other>
__device__ auto load(const P& pointers, const M& mask = {}, const O& other = {}) {
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  using Elem = std::remove_const_t<typename PE::element_type>;
  const auto m = detail::mask_operand(mask);
  const auto o = detail::other_operand<Elem>(other, Elem{});
  using MS = shape_of_t<decltype(m)>;
  using OS = shape_of_t<decltype(o)>;
  using S = broadcast_t<typename PE::shape_type, MS, OS>;
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

  tile_for<Elem, S> out(detail::uninitialized_t{});
  const int thread = static_cast<int>(threadIdx.x);
  TL_UNROLL
  for (int v = 0; v < layout::vectors_per_thread; ++v) {
    detail::vector_access<S, PE, decltype(m)> access(pe, m, thread, v);
    constexpr int n = layout::vector;
    if (access.whole) {
      const auto chunk =
          *reinterpret_cast<const detail::vec<Elem, n>*>(pe.base.address + access.offset[0]);
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) out.regs[v * n + lane] = chunk.v[lane];
    } else {
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) {
        const int slot = v * n + lane;
        if (access.on[lane]) {
          out.regs[slot] = pe.base.address[access.offset[lane]];
        } else {
          const auto p = pos_of<S>(layout::element(thread, slot), slot);
          out.regs[slot] = static_cast<Elem>(o.eval(broadcast_pos<OS, S>(p)));
        }
      }
    }
  }
  return out;
}

template <class P, class V, class M = detail::no_mask>
__device__ void store(const P& pointers, const V& values, const M& mask = {}) {
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  static_assert(!std::is_const_v<typename PE::element_type>,
                "tl::store: this pointer points to const data (tl::ptr<const T>), which is "
                "read-only. Store through the output's tl::ptr<T>.");
  using Elem = typename PE::element_type;
  const auto m = detail::mask_operand(mask);
  using MS = shape_of_t<decltype(m)>;
  using S = broadcast_t<typename PE::shape_type, MS>;
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
  const tile_for<Elem, S> data(values);

  const int thread = static_cast<int>(threadIdx.x);
  if (!layout::owns(thread)) return;
  TL_UNROLL
  for (int v = 0; v < layout::vectors_per_thread; ++v) {
    detail::vector_access<S, PE, decltype(m)> access(pe, m, thread, v);
    constexpr int n = layout::vector;
    if (access.whole) {
      detail::vec<Elem, n> chunk;
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane) chunk.v[lane] = data.regs[v * n + lane];
      *reinterpret_cast<detail::vec<Elem, n>*>(pe.base.address + access.offset[0]) = chunk;
    } else {
      TL_UNROLL
      for (int lane = 0; lane < n; ++lane)
        if (access.on[lane]) pe.base.address[access.offset[lane]] = data.regs[v * n + lane];
    }
  }
}

// Not on the GPU yet: these compile only in kernels that are never instantiated for the GPU.
#define TL_NOT_ON_GPU_YET(name)                                                              \
  template <int Axis = 0, class E, class... Rest>                                            \
  __device__ auto name(const E& x, Rest...) {                                                \
    static_assert(detail::not_on_gpu_yet<E>,                                                 \
                  "tl::" #name " is not on the GPU backend yet: this kernel runs in the "     \
                  "simulator only");                                                         \
    return x;                                                                                \
  }
TL_NOT_ON_GPU_YET(sum)
TL_NOT_ON_GPU_YET(max)
TL_NOT_ON_GPU_YET(min)
TL_NOT_ON_GPU_YET(dot)
#undef TL_NOT_ON_GPU_YET

}  // namespace TL_ABI
}  // namespace tl
