// tl::argmax and tl::argmin, as Triton's: the int32 index of the largest (smallest) value along
// an axis, or the row-major index over a whole tile; the first index where values tie. A NaN
// wins, as it does in tl::max and tl::min: the index of the first NaN (torch.argmax's answer too).
//
// Built from two reductions, the same on both backends: the extreme value itself, then the
// smallest index whose value equals it (or is NaN).
#pragma once

#include <source_location>
#include <type_traits>

#include "tile/dtypes.hpp"
#include "tile/expr.hpp"
#include "tile/ops.hpp"
#include "tile/scan.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

namespace detail {

template <class E>
constexpr bool check_arg_reduction() {
  static_assert(is_expr_v<E>, "tl::argmax/tl::argmin take a tile");
  if constexpr (is_expr_v<E>) {
    static_assert(!std::is_same_v<value_of_t<E>, bool>,
                  "tl::argmax/tl::argmin compare numbers: cast a mask to int first (tl::cast<int>(m))");
    return !std::is_same_v<value_of_t<E>, bool>;
  }
  return false;
}

// Where each lane holds the extreme value `best` (broadcast along the reduced axes), or a NaN.
template <class V, class B>
TL_FN auto holds_extreme(const V& values, const B& best) {
  using T = value_of_t<V>;
  if constexpr (std::is_floating_point_v<T> || is_half_v<T>) return (values == best) | (values != values);
  else return values == best;
}

// Each lane's row-major index in a tile of shape S, from axis A on.
template <class S, int A = 0>
TL_FN auto flat_index_from() {
  if constexpr (A == S::rank - 1) return index_along<S, A>();
  else return index_along<S, A>() * static_cast<int>(S::stride(A)) + flat_index_from<S, A + 1>();
}

template <class Extreme, int Axis, bool Keep, class E>
TL_FN auto arg_extreme(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  const auto values = materialize(x);
  const auto best = backend::template reduce<Extreme, Axis, true>(values, loc);
  const auto index = where(holds_extreme(values, best), index_along<S, Axis>(), S::dim(Axis), loc);
  return backend::template reduce<op::minimum, Axis, Keep>(index, loc);
}

template <class Extreme, class E>
TL_FN auto arg_extreme_all(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  const auto values = materialize(x);
  const auto best = backend::template reduce_all<Extreme>(values, loc);
  const auto index = where(holds_extreme(values, best), flat_index_from<S>(),
                           static_cast<int>(S::size), loc);
  return backend::template reduce_all<op::minimum>(index, loc);
}

}  // namespace detail

#define TL_ARG_REDUCTION(name, Extreme)                                                          \
  template <int Axis, class E>                                                                   \
  TL_FN auto name(const E& x, std::source_location loc = std::source_location::current()) {      \
    if constexpr (detail::check_arg_reduction<E>() && detail::check_reduction<E, Axis>())        \
      return detail::arg_extreme<Extreme, Axis, false>(x, loc);                                  \
  }                                                                                              \
  template <int Axis, class E>                                                                   \
  TL_FN auto name(const E& x, keep_dims_t,                                                       \
                  std::source_location loc = std::source_location::current()) {                  \
    if constexpr (detail::check_arg_reduction<E>() && detail::check_reduction<E, Axis>())        \
      return detail::arg_extreme<Extreme, Axis, true>(x, loc);                                   \
  }                                                                                              \
  template <class E>                                                                             \
    requires is_expr_v<E>                                                                        \
  TL_FN auto name(const E& x, std::source_location loc = std::source_location::current()) {      \
    if constexpr (detail::check_arg_reduction<E>()) return detail::arg_extreme_all<Extreme>(x, loc); \
  }
TL_ARG_REDUCTION(argmax, op::maximum)
TL_ARG_REDUCTION(argmin, op::minimum)
#undef TL_ARG_REDUCTION

}  // namespace TL_ABI
}  // namespace tl
