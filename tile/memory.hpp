// The backend-neutral half of memory access: pointer arithmetic, the data tile type each backend
// defines, and load/store's optional mask and `other` as expressions.
#pragma once

#include <type_traits>

#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {

// A pointer advanced by an integer number of elements. A backend pointer provides advance().
template <class P, class I>
  requires is_ptr_v<P> && std::is_integral_v<I>
TL_FN P operator+(P p, I k) {
  p.advance(k);
  return p;
}
template <class I, class P>
  requires is_ptr_v<P> && std::is_integral_v<I>
TL_FN P operator+(I k, P p) {
  p.advance(k);
  return p;
}
template <class P, class I>
  requires is_ptr_v<P> && std::is_integral_v<I>
TL_FN P operator-(P p, I k) {
  p.advance(-static_cast<long long>(k));
  return p;
}

// The data tile: each backend defines it.
template <class T, int... Dims>
class tile;

template <class T, class S>
struct tile_for_shape;
template <class T, int... D>
struct tile_for_shape<T, shape<D...>> {
  using type = tile<T, D...>;
};
template <class T, class S>
using tile_for = typename tile_for_shape<T, S>::type;

namespace detail {

struct no_mask {};
struct no_other {};

// load/store's mask as an expression; every lane is on when there is no mask.
template <class M>
TL_FN auto mask_operand(const M& mask) {
  static_assert(std::is_same_v<M, no_mask> || is_expr_v<M> || std::is_same_v<M, bool>,
                "tl::load/tl::store: the mask must be a bool tile (e.g. offsets < N)");
  if constexpr (std::is_same_v<M, no_mask>) return full_expr<bool, shape<>>(true);
  else return operand_t<M, M>(as_operand<M, M>(mask));
}

// load's `other` as an expression of the loaded type, weakly typed; `missing` when there is none.
template <class Elem, class O>
TL_FN auto other_operand(const O& other, Elem missing) {
  static_assert(std::is_same_v<O, no_other> || is_expr_v<O> || is_scalar_v<O>,
                "tl::load: `other` must be a number or a tile");
  if constexpr (std::is_same_v<O, no_other>) return scalar_expr<Elem>(missing);
  else return operand_t<O, tile<Elem>>(as_operand<O, tile<Elem>>(other));
}

}  // namespace detail

}  // namespace TL_ABI
}  // namespace tl
