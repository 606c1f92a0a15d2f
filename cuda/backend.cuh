// The CUDA backend of `tl`: the hooks of tile/ops.hpp. One thread block of 32 * num_warps
// threads runs one program; a data tile lives in registers, spread over the block by its layout.
//
// One algorithm per header, in the manner of CUB's block/ headers:
//   cuda/layout.cuh        linear layouts: blocked, declared, slice, mma accumulator and operands
//   cuda/tile_storage.cuh  registers per thread, and element positions from compile-time slots
//   cuda/half.cuh          tl::float16 and tl::bfloat16: 16-bit values with Eigen's rounding
//   cuda/convert.cuh       layout conversions (register renaming or shared memory)
//   cuda/evaluate.cuh      evaluating an expression in a layout (binding its data tiles)
//   cuda/memory.cuh        load and store: 16-byte vectors, predicated lanes, first copies only
//   cuda/reduce.cuh        reductions: registers, butterfly shuffles, warps through shared memory
//   cuda/partner_lanes.cuh the step of scans and sorts: lanes exchanged across one bit of an axis
//   cuda/dot.cuh           dot with fp32 operands: FFMA in the accumulator layout, operands in shared memory
//   cuda/pipeline.cuh      loads of a pipelined tl::range: cp.async into per-thread stage slots, ahead
//   cuda/operand_stages.cuh  the same for dot's 16-bit operands: cp.async into dot's swizzled rows
//   cuda/mma.cuh           dot on the tensor cores (tl::tf32, float16, bfloat16): mma.sync, ldmatrix, swizzled shared memory
//   cuda/descriptor.cuh    tensor descriptors' blocks
//   cuda/atomic.cuh        atomics: one atomic instruction per lane, old values to every copy
//
// The warps per program are a compile-time constant of the translation unit (TL_NUM_WARPS, part
// of the inline namespace, tile/config.hpp): a kernel is built in the unit whose warp count is
// its num_warps (cuda/kernels.cu is compiled once per warp count).
#pragma once

#include "cuda/runtime.cuh"

#include <source_location>
#include <type_traits>

#include "cuda/atomic.cuh"
#include "cuda/convert.cuh"
#include "cuda/descriptor.cuh"
#include "cuda/dot.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/layout.cuh"
#include "cuda/memory.cuh"
#include "cuda/mma.cuh"
#include "cuda/operand_stages.cuh"
#include "cuda/partner_lanes.cuh"
#include "cuda/pipeline.cuh"
#include "cuda/reduce.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"
#include "tile/precision.hpp"

namespace tl {
inline namespace TL_ABI {

namespace detail {
template <class>
inline constexpr bool not_on_gpu_yet = false;
}  // namespace detail

namespace backend {

template <class T>
struct address_of {
  using type = T*;
  __device__ static void advance(T*& a, long long elements) { a += elements; }
};

template <class S>
struct declared_layout {
  using type = cuda::declared_layout<S>;
};

inline constexpr bool tracks_poison = false;

template <class T, class S, class L>
using storage = typename cuda::storage_of<T, S, L>::type;

// A masked-off lane of a load without `other` (poison in the simulator).
template <class T>
__device__ constexpr T no_other_value() {
  return T{};
}

template <class T, class S, class L>
__device__ __forceinline__ void leave_unset(basic_tile<T, S, L>&) {}

template <class T, class S, class L>
__device__ __forceinline__ void fill(basic_tile<T, S, L>& t, T v) {
  cuda::static_for<L::registers>([&](auto k) { t.storage.regs[k] = v; });
}

template <class T, class S, class L, class E>
__device__ __forceinline__ void assign(basic_tile<T, S, L>& t, const E& e) {
  cuda::evaluate_into(t.storage, e);
}

template <class E>
__device__ __forceinline__ auto materialize(const E& e) {
  using S = shape_of_t<E>;
  using L = layouts::layout<cuda::result_layout<S, E>()>;
  if constexpr (cuda::is_trans_of_staged<E>) {
    // tl::trans of a pipelined range's staged tile keeps where its copy is (cuda/tile_storage.cuh).
    using XL = typename E::a_type::layout_type;
    using Source = typename cuda::staged_source<XL>::type;
    basic_tile<value_of_t<E>, S, cuda::staged_transposed_layout<L, Source>> out(detail::uninitialized_t{});
    cuda::evaluate_into(out.storage, e);
    out.storage.staged = e.a.storage.staged;
    if constexpr (!std::is_void_v<Source>) out.storage.again = e.a.storage.again;
    return out;
  } else {
    basic_tile<value_of_t<E>, S, L> out(detail::uninitialized_t{});
    cuda::evaluate_into(out.storage, e);
    return out;
  }
}

// A data tile is read inside an expression only through cuda::bind, which maps each register of
// the result to one of the tile's; reading it by position would need the element's owner.
template <class T, class S, class L, int R>
__device__ lane_t<T> lane_value(const basic_tile<T, S, L>&, const pos<R>&) {
  static_assert(detail::not_on_gpu_yet<T>,
                "tl (GPU backend): internal error: a data tile was evaluated without a layout");
  return {};
}
template <class T, class S, class L, int R>
__device__ bool lane_poison(const basic_tile<T, S, L>&, const pos<R>&) {
  return false;
}

// A rank-0 tile is held by every thread.
template <class T, class S, class L>
__device__ __forceinline__ T scalar_value(const basic_tile<T, S, L>& t) {
  return t.storage.regs[0];
}

__device__ __forceinline__ int program_id(int axis, const std::source_location&) {
  return axis == 0 ? static_cast<int>(blockIdx.x)
                   : axis == 1 ? static_cast<int>(blockIdx.y) : static_cast<int>(blockIdx.z);
}
__device__ __forceinline__ int num_programs(int axis, const std::source_location&) {
  return axis == 0 ? static_cast<int>(gridDim.x)
                   : axis == 1 ? static_cast<int>(gridDim.y) : static_cast<int>(gridDim.z);
}

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
__device__ __forceinline__ auto load(const PE& pe, const MaskE& m, const OtherE& o,
                                     const std::source_location&) {
  if constexpr (cuda::can_stage_operand<Elem, S, PE, MaskE, OtherE> &&
                cuda::operand_site_stages<Elem, S, index_stages<typename PE::offsets_type>(),
                                          cuda::operand_state_words<PE, MaskE, OtherE>> >= 2)
    return cuda::staged_operand_load<Elem, S, has_other>(pe, m, o);
  else if constexpr (cuda::can_pipeline<PE, MaskE>)
    return cuda::pipelined_load<Elem, S, has_other>(pe, m, o);
  else
    return cuda::load<Elem, S, has_other>(pe, m, o);
}

template <class Elem, class S, class PE, class V, class MaskE>
__device__ __forceinline__ void store(const PE& pe, const V& v, const MaskE& m,
                                      const std::source_location&) {
  cuda::store<Elem, S>(pe, v, m);
}

template <class Op, int Axis, bool Keep, class E>
__device__ __forceinline__ auto reduce(const E& x, const std::source_location&) {
  return cuda::reduce<Op, Axis, Keep>(x);
}

template <class Op, class E>
__device__ __forceinline__ auto reduce_all(const E& x, const std::source_location&) {
  return cuda::reduce_all<Op>(x);
}

template <int Axis, int Bit, class E>
__device__ __forceinline__ auto partner_lanes(const E& x, const std::source_location&) {
  return cuda::partner_lanes<Axis, Bit>(x);
}

// float32 operands (any element type but the 16-bit and 8-bit ones is converted to float, as in
// the simulator): exact, FFMA in the accumulator's layout (cuda/dot.cuh); int8 and uint8 operands
// the same with integer multiply-adds into int32. float32 operands with tl::tf32, and float16 or
// bfloat16 operands: mma.sync on the tensor cores (cuda/mma.cuh).
template <int M, int N, int K, class Precision, class A, class B, class C>
__device__ __forceinline__ auto dot(const A& a, const B& b, const C& acc, const std::source_location&) {
  if constexpr (std::is_same_v<Precision, tf32_t> || is_half_v<value_of_t<A>>)
    return cuda::dot_mma<M, N, K>(a, b, acc);
  else
    return cuda::dot_cuda_cores<M, N, K, detail::dot_acc_t<value_of_t<A>>>(a, b, acc);
}

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
