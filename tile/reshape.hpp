// tl::reshape<D0, D1, ...>(x): the same elements in row-major order, seen with another shape of the
// same size (Triton's tl.reshape). Unpacking packed values uses it: eight 4-bit values per int32
// unpack into a [R, C, 8] tile, which reshape<R, C * 8> turns back into rows of columns.
//
// The simulator evaluates it lane by lane. On the GPU a layout maps the bits of an element's
// row-major flat index, which a reshape keeps, so the operand's layout serves the new shape as it
// is: a reshaped data tile keeps its registers (cuda/evaluate.cuh), and moves only where it then
// meets a tile in another layout, like any other tile.
#pragma once

#include <type_traits>

#include "tile/expr.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

template <class S, class A>
struct reshape_expr : expr_base<reshape_expr<S, A>> {
  using a_type = std::remove_cvref_t<A>;
  using a_shape = typename a_type::shape_type;
  using shape_type = S;
  using value_type = typename a_type::value_type;
  static constexpr bool has_data = a_type::has_data;
  static constexpr bool may_poison = a_type::may_poison;
  A a;
  TL_FN explicit reshape_expr(const a_type& x) : a(x) {}
  TL_FN pos<a_shape::rank> inner(const pos<S::rank>& p) const {
    return pos_of<a_shape>(flat_index<S>(p), p.slot);
  }
  TL_FN auto eval(const pos<S::rank>& p) const { return a.eval(inner(p)); }
  TL_FN bool poison(const pos<S::rank>& p) const {
    if constexpr (may_poison) return a.poison(inner(p));
    return false;
  }
};

template <int... Dims, class E>
TL_FN auto reshape(const E& x) {
  static_assert(is_expr_v<E>, "tl::reshape takes a tile");
  using S = shape<Dims...>;
  static_assert(S::size == shape_of_t<E>::size,
                "tl::reshape: the new shape must have as many elements as the tile");
  return finish(reshape_expr<S, stored_t<E>>(x));
}

}  // namespace TL_ABI
}  // namespace tl
