// The backend-neutral half of memory access: the pointer a kernel receives, pointer arithmetic,
// and load/store's optional mask and `other` as expressions.
#pragma once

#include <type_traits>

#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {

namespace backend {
// Each backend defines what a pointer holds: the simulator a checked buffer and an offset, the
// GPU a device address.
template <class T>
struct address_of;
}  // namespace backend

// A pointer to the elements of one tensor, as a kernel receives it: tl::ptr<const float> for an
// input, tl::ptr<float> for an output.
template <class T>
struct ptr {
  using element_type = T;
  typename backend::address_of<T>::type address;

  TL_FN void advance(long long elements) { backend::address_of<T>::advance(address, elements); }
};

template <class T>
struct is_ptr<ptr<T>> : std::true_type {};

// A pointer advanced by an integer number of elements.
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

namespace detail {
// Tag for a data tile whose storage the caller fills.
struct uninitialized_t {};
}  // namespace detail

// The data tile: declared once in tile/tile.hpp, its storage defined by each backend.
template <class T, class S, class Layout>
class basic_tile;

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
  if constexpr (std::is_same_v<O, no_other>) {
    return scalar_expr<Elem>(missing);
  } else {
    using weakly_typed_as = full_expr<Elem, shape<>>;
    return operand_t<O, weakly_typed_as>(as_operand<O, weakly_typed_as>(other));
  }
}

}  // namespace detail

}  // namespace TL_ABI
}  // namespace tl
