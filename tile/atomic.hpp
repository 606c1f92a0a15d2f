// Atomics, as in triton.language: tl::atomic_add, atomic_max, atomic_min, atomic_xchg and
// atomic_cas on float32 and int32 elements, one element per active lane, each returning the
// elements as they were before it (the old values) as a data tile. Declared once here with their
// static_asserts; each backend supplies `backend::atomic<Op, Elem, S>` (simulator/atomic.hpp,
// cuda/atomic.cuh); what one atomic does to one element is tile/atomic_ops.hpp.
//
// A masked-off lane touches nothing; its old value is poison in the simulator (like a masked
// load without `other`) and 0 on the GPU, so a kernel that passes never uses it.
#pragma once

#include <source_location>
#include <type_traits>

#include "tile/atomic_ops.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

namespace detail {

// The checks every atomic makes of its pointers, then the hook. `cmp` is atomic_cas's
// comparand, and the value itself for the others (the hook ignores it).
template <class Op, class P, class C, class V, class M>
TL_FN auto atomic(const P& pointers, const C& cmp, const V& values, const M& mask,
                  const std::source_location& loc) {
  static_assert(is_ptr_v<P> || is_ptr_expr_v<P>,
                "tl atomics: the first argument must be a pointer or a pointer tile (ptr + "
                "offsets)");
  static_assert(is_expr_v<V> || is_scalar_v<V>, "tl atomics: the values must be a tile or a number");
  static_assert(is_expr_v<C> || is_scalar_v<C>,
                "tl::atomic_cas: the comparand must be a tile or a number");
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  static_assert(!std::is_const_v<typename PE::element_type>,
                "tl atomics: this pointer points to const data (tl::ptr<const T>), which is "
                "read-only. An atomic writes: pass the output's tl::ptr<T>.");
  using Elem = std::remove_const_t<typename PE::element_type>;
  static_assert(std::is_same_v<Elem, float> || std::is_same_v<Elem, int>,
                "tl atomics work on float32 and int32 elements (tl::ptr<float>, tl::ptr<int>)");
  const auto m = mask_operand(mask);
  using MaskE = std::remove_cvref_t<decltype(m)>;
  static_assert(std::is_same_v<value_of_t<MaskE>, bool>,
                "tl atomics: the mask must be a bool tile, such as offsets < N");
  const auto& v = as_operand<V, full_expr<Elem, shape<>>>(values);
  const auto& c = as_operand<C, full_expr<Elem, shape<>>>(cmp);
  using S = broadcast_t<typename PE::shape_type, shape_of_t<MaskE>>;
  static_assert(broadcasts_to<shape_of_t<decltype(v)>, S>,
                "tl atomics: the values' shape must broadcast to the pointers' shape");
  static_assert(broadcasts_to<shape_of_t<decltype(c)>, S>,
                "tl::atomic_cas: the comparand's shape must broadcast to the pointers' shape");
  return backend::template atomic<Op, Elem, S>(pe, c, v, m, loc);
}

}  // namespace detail

// Adds `values` to the elements, returning the elements as they were.
template <class P, class V, class M = detail::no_mask>
TL_FN auto atomic_add(const P& pointers, const V& values, const M& mask = {},
                      std::source_location loc = std::source_location::current()) {
  return detail::atomic<atomic_op::add>(pointers, values, values, mask, loc);
}

// Keeps the larger of each element and its value (tl::maximum's rules: NaN wins, -0 < +0).
template <class P, class V, class M = detail::no_mask>
TL_FN auto atomic_max(const P& pointers, const V& values, const M& mask = {},
                      std::source_location loc = std::source_location::current()) {
  return detail::atomic<atomic_op::max>(pointers, values, values, mask, loc);
}

// Keeps the smaller of each element and its value (tl::minimum's rules: NaN wins, -0 < +0).
template <class P, class V, class M = detail::no_mask>
TL_FN auto atomic_min(const P& pointers, const V& values, const M& mask = {},
                      std::source_location loc = std::source_location::current()) {
  return detail::atomic<atomic_op::min>(pointers, values, values, mask, loc);
}

// Replaces the elements with `values`, returning what they were.
template <class P, class V, class M = detail::no_mask>
TL_FN auto atomic_xchg(const P& pointers, const V& values, const M& mask = {},
                       std::source_location loc = std::source_location::current()) {
  return detail::atomic<atomic_op::xchg>(pointers, values, values, mask, loc);
}

// Where an element's bits equal `cmp`'s, replaces it with `values`; returns what it was either
// way (the swap happened where the old value has cmp's bits). Triton's atomic_cas has no mask;
// here one is allowed, as for the others.
template <class P, class C, class V, class M = detail::no_mask>
TL_FN auto atomic_cas(const P& pointers, const C& cmp, const V& values, const M& mask = {},
                      std::source_location loc = std::source_location::current()) {
  return detail::atomic<atomic_op::cas>(pointers, cmp, values, mask, loc);
}

}  // namespace TL_ABI
}  // namespace tl
