// tl::trans(x): the transpose of a 2-D tile (Triton's tl.trans): x of [R, C] becomes [C, R], element
// (i, j) of the result being x(j, i). Flash attention's q kᵀ is `tl::dot(q, tl::trans(k))` with k
// loaded as it lies in memory, [B1, D].
//
// The simulator evaluates it lane by lane, the poison of each lane with it. On the GPU a layout
// maps the bits of an element's row-major flat index, and a transpose only permutes those bits
// (the row bits become the low ones, the column bits the high ones): a tile in layout L, seen as
// [C, R], is in L with its output bits relabelled (layouts::transposed, cuda/layout.cuh). So a
// transposed data tile keeps its registers (cuda/evaluate.cuh), and `dot` of a transposed 16-bit
// operand stores it as the rows it was loaded in (cuda/mma.cuh).
#pragma once

#include <type_traits>

#include "tile/expr.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

template <class A>
struct trans_expr : expr_base<trans_expr<A>> {
  using a_type = std::remove_cvref_t<A>;
  using a_shape = typename a_type::shape_type;
  static_assert(a_shape::rank == 2, "tl::trans transposes a 2-D tile");
  using shape_type = shape<a_shape::dim(1), a_shape::dim(0)>;
  using value_type = typename a_type::value_type;
  static constexpr bool has_data = a_type::has_data;
  static constexpr bool may_poison = a_type::may_poison;
  A a;
  TL_FN explicit trans_expr(const a_type& x) : a(x) {}
  TL_FN pos<2> inner(const pos<2>& p) const {
    pos<2> q{};
    q.c[0] = p.c[1];
    q.c[1] = p.c[0];
    q.slot = p.slot;
    return q;
  }
  TL_FN auto eval(const pos<2>& p) const { return a.eval(inner(p)); }
  TL_FN bool poison(const pos<2>& p) const {
    if constexpr (may_poison) return a.poison(inner(p));
    return false;
  }
};

template <class E>
inline constexpr bool is_trans_v = false;
template <class A>
inline constexpr bool is_trans_v<trans_expr<A>> = true;

template <class E>
TL_FN auto trans(const E& x) {
  static_assert(is_expr_v<E>, "tl::trans takes a tile");
  if constexpr (is_expr_v<E>) {
    static_assert(shape_of_t<E>::rank == 2,
                  "tl::trans transposes a 2-D tile ([R, C] to [C, R]): reshape a tile of another "
                  "rank first (tl::reshape), or add its missing axis with .col() or .row()");
    if constexpr (shape_of_t<E>::rank == 2) return finish(trans_expr<stored_t<E>>(x));
  }
}

}  // namespace TL_ABI
}  // namespace tl
