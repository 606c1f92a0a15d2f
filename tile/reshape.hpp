// tl::reshape<D0, D1, ...>(x): the same elements in row-major order, seen with another shape of the
// same size (Triton's tl.reshape). Unpacking packed values uses it: eight 4-bit values per int32
// unpack into a [R, C, 8] tile, which reshape<R, C * 8> turns back into rows of columns.
//
// The simulator evaluates it lane by lane. The GPU backend does not have it yet: there each
// element can live in another thread after a reshape, which needs the layouts that move values
// between threads, so it is a compile error that names it.
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

namespace detail {
#if TL_BACKEND_CPU
template <int Dummy>
inline constexpr bool reshape_on_gpu = true;
#else
template <int Dummy>
inline constexpr bool reshape_on_gpu = false;
#endif
}  // namespace detail

template <int... Dims, class E>
TL_FN auto reshape(const E& x) {
  static_assert(is_expr_v<E>, "tl::reshape takes a tile");
  using S = shape<Dims...>;
  static_assert(S::size == shape_of_t<E>::size,
                "tl::reshape: the new shape must have as many elements as the tile");
  static_assert(detail::reshape_on_gpu<sizeof...(Dims)>,
                "tl::reshape is not on the GPU backend yet: this kernel runs in the simulator "
                "only");
  return finish(reshape_expr<S, stored_t<E>>(x));
}

}  // namespace TL_ABI
}  // namespace tl
