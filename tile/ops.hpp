// The operations of `tl` that need a backend, declared once: each checks its arguments here
// (the static_asserts a learner sees, the same on both backends), takes the kernel's source line
// by default, and forwards to the backend's hook of the same name in `tl::backend`.
//
// The hooks each backend provides (simulator/backend.hpp, cuda/backend.cuh) are the concept
// tl::tile_backend of tile/backend_hooks.hpp, with the arguments the front passes.
#pragma once

#include <source_location>
#include <type_traits>
#include <utility>

#include "tile/expr.hpp"
#include "tile/memory.hpp"
#include "tile/precision.hpp"
#include "tile/tile.hpp"

namespace tl {
inline namespace TL_ABI {

// Evaluates an expression into a data tile of its own shape and type (expression nodes that
// touch a data tile call it; see tile/expr.hpp).
template <class E>
TL_FN auto materialize(const E& e) {
  static_assert(is_expr_v<E>, "tl::materialize takes a tile expression");
  return backend::materialize(e);
}

// The program's coordinates in the launch grid, as in triton.language.
TL_FN int program_id(int axis, std::source_location loc = std::source_location::current()) {
  return backend::program_id(axis, loc);
}
TL_FN int num_programs(int axis, std::source_location loc = std::source_location::current()) {
  return backend::num_programs(axis, loc);
}

// ---------------------------------------------------------------------------------------------
// load and store

// Loads one element per active lane. A masked-off lane is never read: it holds `other`, or
// poison when there is no `other`.
template <class P, class M = detail::no_mask, class O = detail::no_other>
TL_FN auto load(const P& pointers, const M& mask = {}, const O& other = {},
                std::source_location loc = std::source_location::current()) {
  static_assert(is_ptr_v<P> || is_ptr_expr_v<P>,
                "tl::load: the first argument must be a pointer or a pointer tile (ptr + offsets)");
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  using Elem = std::remove_const_t<typename PE::element_type>;
  const auto m = detail::mask_operand(mask);
  const auto o = detail::other_operand<Elem>(other, backend::no_other_value<Elem>());
  using MaskE = std::remove_cvref_t<decltype(m)>;
  static_assert(std::is_same_v<value_of_t<MaskE>, bool>,
                "tl::load/tl::store: the mask must be a bool tile, such as offsets < N");
  using S = broadcast_t<typename PE::shape_type, shape_of_t<MaskE>, shape_of_t<decltype(o)>>;
  constexpr bool has_other = !std::is_same_v<O, detail::no_other>;
  return backend::template load<Elem, S, has_other>(pe, m, o, loc);
}

// Stores one element per active lane; a masked-off lane writes nothing.
template <class P, class V, class M = detail::no_mask>
TL_FN void store(const P& pointers, const V& values, const M& mask = {},
                 std::source_location loc = std::source_location::current()) {
  static_assert(is_ptr_v<P> || is_ptr_expr_v<P>,
                "tl::store: the first argument must be a pointer or a pointer tile (ptr + offsets)");
  static_assert(is_expr_v<V> || is_scalar_v<V>, "tl::store: the values must be a tile or a number");
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  static_assert(!std::is_const_v<typename PE::element_type>,
                "tl::store: this pointer points to const data (tl::ptr<const T>), which is "
                "read-only. Store through the output's tl::ptr<T>.");
  using Elem = std::remove_const_t<typename PE::element_type>;
  const auto m = detail::mask_operand(mask);
  using MaskE = std::remove_cvref_t<decltype(m)>;
  static_assert(std::is_same_v<value_of_t<MaskE>, bool>,
                "tl::load/tl::store: the mask must be a bool tile, such as offsets < N");
  const auto& v = as_operand<V, full_expr<Elem, shape<>>>(values);
  using S = broadcast_t<typename PE::shape_type, shape_of_t<MaskE>>;
  static_assert(broadcasts_to<shape_of_t<decltype(v)>, S>,
                "tl::store: the values' shape must broadcast to the pointers' shape");
  backend::template store<Elem, S>(pe, v, m, loc);
}

// ---------------------------------------------------------------------------------------------
// Reductions: tl::sum<1>(x), tl::max<1>(x, tl::keep_dims), tl::sum(x)

namespace detail {

template <class E, int Axis>
constexpr bool check_reduction() {
  static_assert(is_expr_v<E>, "tl: reductions take a tile");
  if constexpr (is_expr_v<E>) {
    static_assert(Axis >= 0 && Axis < shape_of_t<E>::rank,
                  "tl: the reduction axis is out of range for this tile");
    return Axis >= 0 && Axis < shape_of_t<E>::rank;
  }
  return false;
}

}  // namespace detail

#define TL_REDUCTION(name, Op)                                                                 \
  template <int Axis, class E>                                                                 \
  TL_FN auto name(const E& x, std::source_location loc = std::source_location::current()) {    \
    if constexpr (detail::check_reduction<E, Axis>())                                          \
      return backend::template reduce<Op, Axis, false>(x, loc);                                \
  }                                                                                            \
  template <int Axis, class E>                                                                 \
  TL_FN auto name(const E& x, keep_dims_t,                                                     \
                  std::source_location loc = std::source_location::current()) {                \
    if constexpr (detail::check_reduction<E, Axis>())                                          \
      return backend::template reduce<Op, Axis, true>(x, loc);                                 \
  }                                                                                            \
  template <class E>                                                                           \
    requires is_expr_v<E>                                                                      \
  TL_FN auto name(const E& x, std::source_location loc = std::source_location::current()) {    \
    return backend::template reduce_all<Op>(x, loc);                                           \
  }
TL_REDUCTION(sum, op::add)
TL_REDUCTION(max, op::maximum)
TL_REDUCTION(min, op::minimum)
#undef TL_REDUCTION

// ---------------------------------------------------------------------------------------------
// Matrix product with fp32 accumulation: a [M, K] @ b [K, N] (+ acc [M, N]), with an optional
// input precision for float32 operands (tile/precision.hpp): tl::dot(a, b, acc, tl::tf32).
// int8 and uint8 operands accumulate in int32, exactly, as Triton's integer dot does.

namespace detail {
template <class Precision, class A, class B, class C>
TL_FN auto dot(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  static_assert(is_expr_v<A> && is_expr_v<B> && is_expr_v<C>, "tl::dot takes tiles");
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  static_assert(SA::rank == 2 && SB::rank == 2, "tl::dot multiplies 2-D tiles: [M, K] @ [K, N]");
  constexpr int M = SA::dim(0), K = SA::dim(1), N = SB::dim(SB::rank - 1);
  static_assert(SB::dim(0) == K, "tl::dot: a is [M, K] and b must be [K, N] with the same K");
  static_assert(M >= 16 && N >= 16 && K >= 16,
                "tl::dot: every dimension must be at least 16 (the tensor cores' smallest tile)");
  static_assert(broadcasts_to<shape_of_t<C>, shape<M, N>>, "tl::dot: acc must be [M, N]");
  static_assert(std::is_same_v<value_of_t<A>, value_of_t<B>>,
                "tl::dot: a and b must have the same dtype (convert one with tl::cast<T>)");
  static_assert(is_8bit_integer_v<value_of_t<A>> || std::is_same_v<value_of_t<C>, float>,
                "tl::dot accumulates in float32: acc must be a float tile");
  static_assert(!is_8bit_integer_v<value_of_t<A>> || std::is_same_v<value_of_t<C>, int>,
                "tl::dot of int8 or uint8 operands accumulates in int32: acc must be an int tile");
  static_assert(std::is_same_v<Precision, ieee_t> || std::is_same_v<value_of_t<A>, float>,
                "tl::dot: tl::tf32 rounds float32 operands to TF32; these operands are not "
                "float32 (a float16 or bfloat16 dot needs no precision option)");
  return backend::template dot<M, N, K, Precision>(a, b, acc, loc);
}
}  // namespace detail

template <class A, class B, class C>
  requires(!is_input_precision_v<C>)
TL_FN auto dot(const A& a, const B& b, const C& acc,
               std::source_location loc = std::source_location::current()) {
  return detail::dot<ieee_t>(a, b, acc, loc);
}

template <class A, class B, class C, class Precision>
  requires is_input_precision_v<Precision>
TL_FN auto dot(const A& a, const B& b, const C& acc, Precision,
               std::source_location loc = std::source_location::current()) {
  return detail::dot<std::remove_cvref_t<Precision>>(a, b, acc, loc);
}

template <class A, class B>
TL_FN auto dot(const A& a, const B& b, std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<A> && is_expr_v<B>, "tl::dot takes tiles");
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  static_assert(SA::rank == 2 && SB::rank == 2, "tl::dot multiplies 2-D tiles: [M, K] @ [K, N]");
  return dot(a, b, zeros<detail::dot_acc_t<value_of_t<A>>, SA::dim(0), SB::dim(SB::rank - 1)>(),
             loc);
}

template <class A, class B, class Precision>
  requires is_input_precision_v<Precision>
TL_FN auto dot(const A& a, const B& b, Precision precision,
               std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<A> && is_expr_v<B>, "tl::dot takes tiles");
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  static_assert(SA::rank == 2 && SB::rank == 2, "tl::dot multiplies 2-D tiles: [M, K] @ [K, N]");
  return dot(a, b, zeros<float, SA::dim(0), SB::dim(SB::rank - 1)>(), precision, loc);
}

}  // namespace TL_ABI
}  // namespace tl
