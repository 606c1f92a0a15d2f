// Evaluating a tile expression into registers of a chosen layout.
//
// An expression is a tree of lazy nodes (tile/expr.hpp) whose leaves are scalars, aranges and
// data tiles. Lazy nodes compute a lane from its coordinates, so they evaluate in any layout.
// A data tile holds only its own elements in its own threads: before the evaluation, `bind`
// replaces each data leaf by a view that reads, for every register of the result, the register
// of the leaf that holds the element needed there. That needs the leaf to be in the projection of
// the result's layout onto the leaf's shape (for a leaf broadcast along an axis, the layout with
// that axis's bits dropped: what a reduction along the axis produces, so .col() of a reduction is
// free). A leaf in another layout is converted first (cuda/convert.cuh). The register of the
// leaf is a compile-time function of the register being computed, so no lookup survives
// compilation.
//
// The layout of a result: the layout of its first data operand of the same size (a data tile
// used at its own shape never moves; under tl::trans, that layout with its bits relabelled), or
// else the blocked layout of its shape.
#pragma once

#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/layout.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"
#include "tile/reshape.hpp"
#include "tile/trans.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

template <class E>
struct is_reshape : std::false_type {};
template <class S, class A>
struct is_reshape<reshape_expr<S, A>> : std::true_type {};

template <class E>
struct is_data_tile : std::false_type {};
template <class T, class S, class L>
struct is_data_tile<basic_tile<T, S, L>> : std::true_type {};

// The bits of a child's flat index, as bits of its parent's (tile/shape.hpp broadcasting:
// dimensions aligned from the right; a dimension of size 1 has no bits).
template <class Child, class Parent>
constexpr layouts::bit_map child_bits(const layouts::bit_map& parent) {
  constexpr auto c = bits_of<Child>();
  constexpr auto p = bits_of<Parent>();
  layouts::bit_map m;
  m.bits = c.total();
  for (int i = 0; i < Child::rank; ++i) {
    const int j = i + Parent::rank - Child::rank;
    if (c.log2_dims[i] > 0 && c.log2_dims[i] == p.log2_dims[j])
      for (int b = 0; b < c.log2_dims[i]; ++b) m.from[c.low_bit(i) + b] = parent.from[p.low_bit(j) + b];
  }
  return m;
}

// The same for the operand of expand_dims<Axis>: its dimensions are the parent's without Axis.
template <class Child, class Parent, int Axis>
constexpr layouts::bit_map unexpanded_bits(const layouts::bit_map& parent) {
  constexpr auto c = bits_of<Child>();
  constexpr auto p = bits_of<Parent>();
  layouts::bit_map m;
  m.bits = c.total();
  for (int i = 0; i < Child::rank; ++i) {
    const int j = i < Axis ? i : i + 1;
    for (int b = 0; b < c.log2_dims[i]; ++b) m.from[c.low_bit(i) + b] = parent.from[p.low_bit(j) + b];
  }
  return m;
}

// The same for the operand of tl::trans ([R, C], its parent [C, R]): the operand's column bit c is
// the parent's bit log2(R) + c, its row bit log2(C) + r the parent's bit r.
template <class Child>
constexpr layouts::bit_map untransposed_bits(const layouts::bit_map& parent) {
  constexpr int log_rows = layouts::log2_exact(Child::dim(0)), log_cols = layouts::log2_exact(Child::dim(1));
  layouts::bit_map m;
  m.bits = parent.bits;
  for (int b = 0; b < m.bits; ++b) m.from[b] = parent.from[b < log_cols ? b + log_rows : b - log_cols];
  return m;
}

// The layout of tl::trans of a tile of shape Child in layout l (the same registers).
template <class Child>
constexpr layouts::linear_layout transposed_layout(const layouts::linear_layout& l) {
  return layouts::transposed(l, layouts::log2_exact(Child::dim(0)), layouts::log2_exact(Child::dim(1)));
}

// A data leaf bound to a result layout: register `slot` of the result reads register map[slot]
// of the leaf. Holds the leaf's registers by reference, or a converted copy by value.
template <class T, class S, class Regs, auto Map>
struct bound_leaf : expr_base<bound_leaf<T, S, Regs, Map>> {
  using value_type = T;
  using shape_type = S;
  static constexpr bool has_data = false;  // held by value in the bound tree
  static constexpr bool may_poison = false;
  Regs data;
  template <int R>
  __device__ __forceinline__ lane_t<T> eval(const pos<R>& p) const {
    return data.regs[Map[p.slot]];
  }
  template <int R>
  __device__ __forceinline__ bool poison(const pos<R>&) const {
    return false;
  }
};

// Rebuilding a node around bound children.
template <class Op, class A, class B, class BA, class BB>
__device__ __forceinline__ auto rebuild_binary(const binary_expr<Op, A, B>&, const BA& a, const BB& b) {
  return binary_expr<Op, BA, BB>(a, b);
}
template <class Op, class A, class BA>
__device__ __forceinline__ auto rebuild_unary(const unary_expr<Op, A>&, const BA& a) {
  return unary_expr<Op, BA>(a);
}
template <class T, class A, class BA>
__device__ __forceinline__ auto rebuild_unary(const cast_expr<T, A>&, const BA& a) {
  return cast_expr<T, BA>(a);
}
template <class C, class A, class B, class BC, class BA, class BB>
__device__ __forceinline__ auto rebuild_ternary(const where_expr<C, A, B>&, const BC& c, const BA& a,
                                                const BB& b) {
  return where_expr<BC, BA, BB>(c, a, b);
}
template <class Op, class A, class B, class C, class BC, class BA, class BB>
__device__ __forceinline__ auto rebuild_ternary(const ternary_expr<Op, A, B, C>&, const BC& c,
                                                const BA& a, const BB& b) {
  return ternary_expr<Op, BA, BB, BC>(a, b, c);
}

template <layouts::linear_layout Target, layouts::bit_map Kept, class E>
__device__ __forceinline__ auto bind(const E& e);

template <layouts::linear_layout Target, layouts::bit_map Kept, class T, class S, class L>
__device__ __forceinline__ auto bind_tile(const basic_tile<T, S, L>& t) {
  constexpr layouts::linear_layout want = layouts::projected(Target, Kept);
  constexpr int result_registers = 1 << Target.reg_bits;
  if constexpr (layouts::same_threads(L::value, want)) {
    constexpr auto map = layouts::register_map<result_registers>(Target, Kept, L::value);
    return bound_leaf<T, S, const registers<T, S, L>&, map>{{}, t.storage};
  } else {
    using W = layouts::layout<want>;
    constexpr auto map = layouts::register_map<result_registers>(Target, Kept, want);
    return bound_leaf<T, S, registers<T, S, W>, map>{{}, convert<W>(t.storage)};
  }
}

template <layouts::linear_layout Target, layouts::bit_map Kept, class E>
__device__ __forceinline__ auto bind(const E& e) {
  using X = std::remove_cvref_t<E>;
  using S = shape_of_t<X>;
  if constexpr (!X::has_data) {
    return e;
  } else if constexpr (is_data_tile<X>::value) {
    return bind_tile<Target, Kept>(e);
  } else if constexpr (requires { typename X::c_type; }) {  // where_expr, ternary_expr
    using C = typename X::c_type;
    using A = typename X::a_type;
    using B = typename X::b_type;
    auto c = bind<Target, child_bits<shape_of_t<C>, S>(Kept)>(e.c);
    auto a = bind<Target, child_bits<shape_of_t<A>, S>(Kept)>(e.a);
    auto b = bind<Target, child_bits<shape_of_t<B>, S>(Kept)>(e.b);
    return rebuild_ternary(e, c, a, b);
  } else if constexpr (requires { typename X::b_type; }) {  // binary_expr
    using A = typename X::a_type;
    using B = typename X::b_type;
    auto a = bind<Target, child_bits<shape_of_t<A>, S>(Kept)>(e.a);
    auto b = bind<Target, child_bits<shape_of_t<B>, S>(Kept)>(e.b);
    return rebuild_binary(e, a, b);
  } else if constexpr (is_trans_v<X>) {
    // A transpose permutes the flat-index bits: the operand is read in the result's layout with
    // its bits relabelled, so a transposed data tile keeps its registers.
    using A = typename X::a_type;
    auto a = bind<Target, untransposed_bits<shape_of_t<A>>(Kept)>(e.a);
    return trans_expr<decltype(a)>(a);
  } else if constexpr (is_reshape<X>::value) {
    // A row-major reshape keeps every element's flat index, and a layout maps flat-index bits:
    // the operand is read in the result's layout as it is, with the same bits kept.
    auto a = bind<Target, Kept>(e.a);
    return reshape_expr<S, decltype(a)>(a);
  } else if constexpr (requires { typename X::a_shape; }) {  // expand_expr
    using A = typename X::a_type;
    auto a = bind<Target, unexpanded_bits<shape_of_t<A>, S, X::axis>(Kept)>(e.a);
    return expand_expr<X::axis, decltype(a)>(a);
  } else {  // unary_expr, cast_expr
    auto a = bind<Target, Kept>(e.a);
    return rebuild_unary(e, a);
  }
}

// ---------------------------------------------------------------------------------------------
// Choosing the layout of a result

struct found_layout {
  bool found = false;
  layouts::linear_layout layout{};
};

// The layout of the first data tile in E with `bits` bits (the size of the result).
template <class E>
constexpr found_layout first_full_layout(int bits) {
  using X = std::remove_cvref_t<E>;
  if constexpr (!X::has_data) {
    return {};
  } else if constexpr (is_data_tile<X>::value) {
    if (X::layout_type::value.out_bits == bits) return {true, X::layout_type::value};
    return {};
  } else if constexpr (is_trans_v<X>) {
    // The operand's layout, relabelled: the transpose of a data tile is its registers as they are.
    const auto f = first_full_layout<typename X::a_type>(bits);
    if (f.found) return {true, transposed_layout<shape_of_t<typename X::a_type>>(f.layout)};
    return {};
  } else if constexpr (requires { typename X::c_type; }) {
    for (auto f : {first_full_layout<typename X::c_type>(bits), first_full_layout<typename X::a_type>(bits),
                   first_full_layout<typename X::b_type>(bits)})
      if (f.found) return f;
    return {};
  } else if constexpr (requires { typename X::b_type; }) {
    const auto a = first_full_layout<typename X::a_type>(bits);
    return a.found ? a : first_full_layout<typename X::b_type>(bits);
  } else {
    return first_full_layout<typename X::a_type>(bits);
  }
}

// The layout in which to evaluate a result of shape S from the expressions Es (in order), or
// Fallback where none has a data tile of the full size.
template <class S, class Fallback, class... Es>
constexpr layouts::linear_layout result_layout_or() {
  constexpr int bits = bits_of<S>().total();
  for (auto f : {found_layout{}, first_full_layout<Es>(bits)...})
    if (f.found) return f.layout;
  return Fallback::value;
}
template <class S, class... Es>
constexpr layouts::linear_layout result_layout() {
  return result_layout_or<S, blocked_layout<S>, Es...>();
}

// Binds E (whose shape broadcasts to S) for evaluation in layout L over S.
template <class L, class S, class E>
__device__ __forceinline__ auto bind_for(const E& e) {
  return bind<L::value, child_bits<shape_of_t<E>, S>(layouts::identity_map(L::value.out_bits))>(e);
}

// Evaluates E into registers of layout L over shape S.
template <class T, class S, class L, class E>
__device__ __forceinline__ void evaluate_into(registers<T, S, L>& out, const E& e) {
  using ES = shape_of_t<E>;
  const auto bound = bind_for<L, S>(e);
  const auto thread = thread_coords<S, L>();
  static_for<L::registers>([&](auto k) {
    const auto p = position<S, L, k>(thread);
    out.regs[k] = op::cast_to<T>{}(bound.eval(broadcast_pos<ES, S>(p)));
  });
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
