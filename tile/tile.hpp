// The data tile, declared once for both backends: what `load`, reductions, `dot` and every
// operation on data produce, and what a kernel declares for state that lives across statements
// (`tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);`).
//
// The class holds the backend's storage (`backend::storage<T, S, Layout>`: every value and a
// poison bit in the simulator, a few registers per thread on the GPU) and forwards to the
// backend's hooks. Layout is the backend's: the simulator has one; on the GPU it says which
// thread holds which element, and `tl::tile<T, dims...>` is the layout for tiles a kernel
// declares (backend::declared_layout).
#pragma once

#include <type_traits>

#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

template <class T, class S, class Layout>
class basic_tile : public expr_base<basic_tile<T, S, Layout>> {
 public:
  using value_type = T;
  using shape_type = S;
  using layout_type = Layout;
  static constexpr bool has_data = true;
  static constexpr bool may_poison = backend::tracks_poison;

  // A tile nobody assigned: poison in the simulator, like a register nothing wrote.
  // The simulator keeps the line it was declared on, for the reports of the poison it holds.
  TL_FN basic_tile(op_location declared = std::source_location::current()) {
#if TL_BACKEND_CPU
    backend::leave_unset(*this, declared);
#else
    (void)declared;
    backend::leave_unset(*this);
#endif
  }
  TL_FN explicit basic_tile(detail::uninitialized_t) {}

  // From any expression that broadcasts to this shape: tl::tile<float, B0> m = tl::full<B0>(-INFINITY);
  template <class E>
    requires is_expr_v<E>
  TL_FN basic_tile(const E& e) {
    static_assert(broadcasts_to<shape_of_t<E>, S>,
                  "tl::tile: the expression's shape does not broadcast to this tile's shape");
    // As in Triton, a tile keeps its dtype: a float expression never silently becomes an int
    // tile (or a float32 one a float16 tile). Scalars still convert (tl::tile<float, B0> t = 0).
    static_assert(std::is_same_v<value_of_t<E>, T>,
                  "tl::tile: the expression's dtype differs from this tile's: convert it with "
                  "tl::cast<T>(x) (Triton's x.to(dtype)), or declare the tile with the "
                  "expression's dtype");
    backend::assign(*this, e);
  }
  // From a scalar: tl::tile<float, B0> acc = 0.0f;
  template <class V>
    requires is_scalar_v<V>
  TL_FN basic_tile(V v) {
    backend::fill(*this, static_cast<T>(v));
  }

  // Evaluates the whole right-hand side before replacing any value: acc = acc * r + s.
  template <class E>
    requires(is_expr_v<E> && !std::is_same_v<std::remove_cvref_t<E>, basic_tile>) || is_scalar_v<E>
  TL_FN basic_tile& operator=(const E& e) {
    basic_tile fresh(e);
    *this = fresh;
    return *this;
  }

  // A rank-0 tile (a full reduction, a load through a single pointer) converts to its value;
  // the simulator reports converting poison (branching on it).
  TL_FN operator T() const
    requires(S::rank == 0)
  {
    return backend::scalar_value(*this);
  }

  template <int R>
  TL_FN lane_t<T> eval(const pos<R>& p) const {
    return backend::lane_value(*this, p);
  }
  template <int R>
  TL_FN bool poison(const pos<R>& p) const {
    return backend::lane_poison(*this, p);
  }

  backend::storage<T, S, Layout> storage;
};

// tl::tile<T, dims...>: the data tile a kernel declares.
template <class T, int... Dims>
using tile = basic_tile<T, shape<Dims...>, typename backend::declared_layout<shape<Dims...>>::type>;

template <class T, class S>
struct tile_for_shape;
template <class T, int... D>
struct tile_for_shape<T, shape<D...>> {
  using type = tile<T, D...>;
};
// tl::tile of a shape given as a tl::shape.
template <class T, class S>
using tile_for = typename tile_for_shape<T, S>::type;

}  // namespace TL_ABI
}  // namespace tl
