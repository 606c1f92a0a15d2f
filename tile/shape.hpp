// Static tile shapes, NumPy-style broadcasting, and the position of one element inside a tile.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {

constexpr bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

template <int... Dims>
struct shape {
  static_assert(((Dims > 0) && ...), "tl: tile dimensions must be positive");
  static_assert((is_power_of_two(Dims) && ...),
                "tl: tile dimensions must be powers of two (as in Triton): round the block up to a "
                "power of two and mask the lanes past the end");
  static constexpr int rank = sizeof...(Dims);
  static constexpr long long size = (1LL * ... * Dims);
  static constexpr std::array<int, sizeof...(Dims)> dims{Dims...};

  // Usable in device code, where static arrays are not.
  TL_FN static constexpr int dim(int axis) {
    int k = 0, found = 1;
    ((found = (k++ == axis ? Dims : found)), ...);
    return found;
  }
  // Row-major stride of an axis.
  TL_FN static constexpr long long stride(int axis) {
    long long s = 1;
    for (int a = rank - 1; a > axis; --a) s *= dim(a);
    return s;
  }
};

template <class S>
struct is_shape : std::false_type {};
template <int... D>
struct is_shape<shape<D...>> : std::true_type {};

namespace detail {

template <std::size_t R, std::array<int, R> Dims, std::size_t... I>
auto shape_from(std::index_sequence<I...>) -> shape<Dims[I]...>;

}  // namespace detail

// shape<...> from a constexpr std::array of dimensions.
template <std::size_t R, std::array<int, R> Dims>
using shape_from_array = decltype(detail::shape_from<R, Dims>(std::make_index_sequence<R>{}));

namespace detail {

struct broadcast_dims_result {
  std::array<int, 8> dims{};
  int rank = 0;
  bool ok = true;
};

template <class A, class B>
constexpr broadcast_dims_result broadcast_dims() {
  broadcast_dims_result out;
  out.rank = A::rank > B::rank ? A::rank : B::rank;
  for (int i = 0; i < out.rank; ++i) {
    const int ia = i - (out.rank - A::rank), ib = i - (out.rank - B::rank);
    const int da = ia >= 0 ? A::dims[ia] : 1, db = ib >= 0 ? B::dims[ib] : 1;
    if (da == db || db == 1)
      out.dims[i] = da;
    else if (da == 1)
      out.dims[i] = db;
    else
      out.ok = false;
  }
  return out;
}

template <class A, class B>
struct broadcast2 {
  static constexpr broadcast_dims_result r = broadcast_dims<A, B>();
  static_assert(r.ok,
                "tl: these tile shapes cannot be broadcast together. Compare the shapes from the "
                "right: each pair of dimensions must be equal or one of them must be 1. Use "
                "x.col() (x[:, None]) or x.row() (x[None, :]) to add the missing axis.");
  static constexpr std::array<int, r.rank> dims = [] {
    std::array<int, r.rank> d{};
    // After a failed broadcast, a harmless shape keeps the one message above from cascading.
    for (int i = 0; i < r.rank; ++i) d[i] = r.ok ? r.dims[i] : 1;
    return d;
  }();
  using type = shape_from_array<r.rank, dims>;
};

}  // namespace detail

template <class... S>
struct broadcast;
template <class A>
struct broadcast<A> {
  using type = A;
};
template <class A, class B, class... Rest>
struct broadcast<A, B, Rest...> {
  using type = typename broadcast<typename detail::broadcast2<A, B>::type, Rest...>::type;
};
template <class... S>
using broadcast_t = typename broadcast<S...>::type;

// True when From can be broadcast to exactly To (To is not enlarged).
template <class From, class To>
inline constexpr bool broadcasts_to = [] {
  constexpr auto r = detail::broadcast_dims<From, To>();
  if (!r.ok || r.rank != To::rank) return false;
  for (int i = 0; i < r.rank; ++i)
    if (r.dims[i] != To::dims[i]) return false;
  return true;
}();

// The position of one element of a tile: its coordinates, and on the GPU the register slot of
// the element being computed in the tile that an evaluation fills (the same slot all the way down
// an expression; each data tile in it maps that slot to its own register). -1 on the CPU.
template <int Rank>
struct pos {
  int c[Rank > 0 ? Rank : 1];
  int slot;
};

namespace detail {
template <class S, int Axis, bool Keep, std::size_t... I>
auto reduced_shape(std::index_sequence<I...>) {
  if constexpr (Keep)
    return shape<(static_cast<int>(I) == Axis ? 1 : S::dims[I])...>{};
  else
    return shape<S::dims[I < static_cast<std::size_t>(Axis) ? I : I + 1]...>{};
}
}  // namespace detail

// The shape of a reduction's result along Axis, with the axis kept (size 1) or removed.
template <class S, int Axis, bool Keep>
using reduced_shape_t = decltype(detail::reduced_shape<S, Axis, Keep>(
    std::make_index_sequence<Keep ? S::rank : (S::rank > 0 ? S::rank - 1 : 0)>{}));

// Position of the element of Child (a shape that broadcasts to Parent) that feeds Parent's element.
template <class Child, class Parent>
TL_FN pos<Child::rank> broadcast_pos(const pos<Parent::rank>& p) {
  if constexpr (std::is_same_v<Child, Parent>) {
    return p;
  } else {
    pos<Child::rank> q{};
    q.slot = p.slot;
    for (int i = 0; i < Child::rank; ++i)
      q.c[i] = Child::dim(i) == 1 ? 0 : p.c[i + Parent::rank - Child::rank];
    return q;
  }
}

// Row-major flat index of a position.
template <class S>
TL_FN long long flat_index(const pos<S::rank>& p) {
  long long i = 0;
  for (int a = 0; a < S::rank; ++a) i = i * S::dim(a) + p.c[a];
  return i;
}

// Position of a row-major flat index.
template <class S>
TL_FN pos<S::rank> pos_of(long long i, int slot = -1) {
  pos<S::rank> p{};
  p.slot = slot;
  for (int a = S::rank - 1; a >= 0; --a) {
    p.c[a] = static_cast<int>(i % S::dim(a));
    i /= S::dim(a);
  }
  return p;
}

}  // namespace TL_ABI
}  // namespace tl
