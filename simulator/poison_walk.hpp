// Where the poison in one lane of an expression was made: down the expression to the data tile
// (or the integer division) that poisoned it. Called only for a lane that is poison, once per
// operation that meets poison, so that reports name the cause: "poison from the masked load
// without `other` at kernels/softmax.hpp:21".
#pragma once

#include <type_traits>

#include "simulator/origin.hpp"
#include "simulator/front_hooks.hpp"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {
namespace walk {

// Leaves without data hold no poison; a data tile keeps the origin of its poison.
template <class E, int R>
sim::poison_origin poison_origin_of(const E& e, const pos<R>& p);
template <class Op, class A, int R>
sim::poison_origin poison_origin_of(const unary_expr<Op, A>& e, const pos<R>& p);
template <class Op, class A, class B, int R>
sim::poison_origin poison_origin_of(const binary_expr<Op, A, B>& e, const pos<R>& p);
template <class C, class A, class B, int R>
sim::poison_origin poison_origin_of(const where_expr<C, A, B>& e, const pos<R>& p);
template <class Op, class A, class B, class C, int R>
sim::poison_origin poison_origin_of(const ternary_expr<Op, A, B, C>& e, const pos<R>& p);
template <class T, class A, int R>
sim::poison_origin poison_origin_of(const cast_expr<T, A>& e, const pos<R>& p);
template <int Axis, class A, int R>
sim::poison_origin poison_origin_of(const expand_expr<Axis, A>& e, const pos<R>& p);

template <class E, int R>
sim::poison_origin poison_origin_of(const E& e, const pos<R>& p) {
  if constexpr (requires { e.storage.origin; }) return e.storage.origin;
  else if constexpr (requires { e.a; e.inner(p); }) return poison_origin_of(e.a, e.inner(p));  // reshape, trans
  else return {};
}

template <class Op, class A, int R>
sim::poison_origin poison_origin_of(const unary_expr<Op, A>& e, const pos<R>& p) {
  return poison_origin_of(e.a, p);
}

template <class T, class A, int R>
sim::poison_origin poison_origin_of(const cast_expr<T, A>& e, const pos<R>& p) {
  return poison_origin_of(e.a, p);
}

template <int Axis, class A, int R>
sim::poison_origin poison_origin_of(const expand_expr<Axis, A>& e, const pos<R>& p) {
  return poison_origin_of(e.a, e.inner(p));
}

template <class Op, class A, class B, int R>
sim::poison_origin poison_origin_of(const binary_expr<Op, A, B>& e, const pos<R>& p) {
  using N = binary_expr<Op, A, B>;
  using S = typename N::shape_type;
  const auto pa = broadcast_pos<typename N::a_type::shape_type, S>(p);
  if (e.a.poison(pa)) return poison_origin_of(e.a, pa);
  const auto pb = broadcast_pos<typename N::b_type::shape_type, S>(p);
  if (e.b.poison(pb)) return poison_origin_of(e.b, pb);
  if constexpr (std::is_same_v<Op, op::div>)
    return {"an integer division by zero", e.loc};
  else if constexpr (std::is_same_v<Op, op::mod>)
    return {"an integer remainder (%) by zero", e.loc};
  else
    return {};
}

template <class C, class A, class B, int R>
sim::poison_origin poison_origin_of(const where_expr<C, A, B>& e, const pos<R>& p) {
  using N = where_expr<C, A, B>;
  using S = typename N::shape_type;
  const auto pc = broadcast_pos<typename N::c_type::shape_type, S>(p);
  if (e.c.poison(pc)) return poison_origin_of(e.c, pc);
  if (e.c.eval(pc)) return poison_origin_of(e.a, broadcast_pos<typename N::a_type::shape_type, S>(p));
  return poison_origin_of(e.b, broadcast_pos<typename N::b_type::shape_type, S>(p));
}

template <class Op, class A, class B, class C, int R>
sim::poison_origin poison_origin_of(const ternary_expr<Op, A, B, C>& e, const pos<R>& p) {
  using N = ternary_expr<Op, A, B, C>;
  using S = typename N::shape_type;
  const auto pa = broadcast_pos<typename N::a_type::shape_type, S>(p);
  if (e.a.poison(pa)) return poison_origin_of(e.a, pa);
  const auto pb = broadcast_pos<typename N::b_type::shape_type, S>(p);
  if (e.b.poison(pb)) return poison_origin_of(e.b, pb);
  return poison_origin_of(e.c, broadcast_pos<typename N::c_type::shape_type, S>(p));
}

}  // namespace walk
}  // namespace TL_ABI
}  // namespace tl
