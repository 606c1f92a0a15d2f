// Whether a run of W consecutive elements along a tile's last axis is one whole vector access: every
// element on in the mask and the offsets consecutive, found from a few evaluations instead of W.
//
// A load or store moves a vector (8 halves, 4 floats) as one 16-byte access only when each of its
// lanes is on and the offsets are off[0], off[0] + 1, ...; evaluating the mask and the offsets in
// every lane and comparing them costs about 3 W integer instructions per vector, which in a
// pipelined matmul is most of what a k-step issues. Offsets and masks are mostly affine in the
// element's coordinates (aranges, scalars, a range's index, `.row()`/`.col()`, `+`, `-`, `*` by a
// scalar), and then the whole run follows from its ends:
//
//   offsets   int32 arithmetic wraps, and an affine form evaluated with wrapping arithmetic is
//             every lane's value exactly (mod 2^32), so the run is consecutive iff the step from
//             its first element to the second is 1;
//   a < b     with a and b affine along the run, a - b is a line in the run's index j: it is
//             negative at every j iff it is at both ends, provided no lane of a or b wrapped, which
//             holds iff both ends of each are inside int32 (checked in 64 bits);
//   m1 & m2   on everywhere iff both are; m1 | m2 where either is (a sufficient test);
//   constant  a node whose last axis has size 1 (`(rows < N).col()`, a scalar) is its first lane.
//
// Anything else (a mask from data, `==`, a modulo) is evaluated lane by lane, so the answer is
// always exact: the fast forms only decide sooner. A caller whose answer is "no" takes its lane by
// lane path, which handles masked lanes, strides and misalignment as before.
#pragma once

#include <type_traits>

#include "cuda/front_hooks.cuh"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/range.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {
namespace runs {

template <class E>
inline constexpr bool int32_valued = [] {
  using V = typename E::value_type;
  return std::is_integral_v<V> && std::is_signed_v<V> && sizeof(V) <= 4;
}();

// Leaves that are one value for the whole tile.
template <class E>
inline constexpr bool constant = false;
template <class T>
inline constexpr bool constant<scalar_expr<T>> = true;
template <class T, class S>
inline constexpr bool constant<full_expr<T, S>> = true;
template <int Stages>
inline constexpr bool constant<range_index_expr<Stages>> = true;

// Whether an integer expression is affine in the element's coordinates.
template <class E>
struct affine : std::false_type {};
template <class T>
struct affine<scalar_expr<T>> : std::bool_constant<int32_valued<scalar_expr<T>>> {};
template <class T, class S>
struct affine<full_expr<T, S>> : std::bool_constant<int32_valued<full_expr<T, S>>> {};
template <int N>
struct affine<arange_expr<N>> : std::true_type {};
template <int Stages>
struct affine<range_index_expr<Stages>> : std::true_type {};
template <int Axis, class A>
struct affine<expand_expr<Axis, A>> : affine<std::remove_cvref_t<A>> {};
template <class A>
struct affine<unary_expr<op::negate, A>>
    : std::bool_constant<int32_valued<unary_expr<op::negate, A>> && affine<std::remove_cvref_t<A>>::value> {};
template <class Op, class A, class B>
struct affine<binary_expr<Op, A, B>> {
  using a_type = std::remove_cvref_t<A>;
  using b_type = std::remove_cvref_t<B>;
  static constexpr bool value =
      int32_valued<binary_expr<Op, A, B>> && affine<a_type>::value && affine<b_type>::value &&
      (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
       (std::is_same_v<Op, op::mul> && (constant<a_type> || constant<b_type>)));
};
template <class E>
inline constexpr bool affine_v = affine<std::remove_cvref_t<E>>::value;

template <class E>
inline constexpr bool along_run = [] {
  using S = shape_of_t<E>;
  return S::rank > 0 && S::dim(S::rank - 1) > 1;
}();

template <int R>
__device__ __forceinline__ pos<R> stepped(pos<R> p, int j) {
  p.c[R - 1] += j;
  return p;
}

// The lanes j = 0 and 1 of an affine expression along the run, and whether its last lane W - 1
// stays inside int32 with them (then no lane of the run wrapped, and lane j is first + j * step).
template <int W, class E>
__device__ __forceinline__ bool unwrapped_line(const E& e, const pos<shape_of_t<E>::rank>& p,
                                               long long& first, long long& step) {
  first = static_cast<int>(e.eval(p));
  if constexpr (along_run<E>) {
    step = static_cast<int>(static_cast<unsigned>(static_cast<int>(e.eval(stepped(p, 1)))) -
                            static_cast<unsigned>(first));
  } else {
    step = 0;
  }
  const long long last = first + (W - 1) * step;
  return last >= -2147483648LL && last <= 2147483647LL;
}

template <class Op>
inline constexpr bool ordering = std::is_same_v<Op, op::less> || std::is_same_v<Op, op::less_equal> ||
                                 std::is_same_v<Op, op::greater> || std::is_same_v<Op, op::greater_equal>;

template <class Op>
__device__ __forceinline__ bool holds(long long d) {  // a - b, compared with 0 as Op compares a and b
  if constexpr (std::is_same_v<Op, op::less>) return d < 0;
  else if constexpr (std::is_same_v<Op, op::less_equal>) return d <= 0;
  else if constexpr (std::is_same_v<Op, op::greater>) return d > 0;
  else return d >= 0;
}

template <int W, class E>
__device__ __forceinline__ bool each_lane_on(const E& e, const pos<shape_of_t<E>::rank>& p) {
  bool on = true;
  for (int j = 0; j < W; ++j) on = on && static_cast<bool>(e.eval(stepped(p, j)));
  return on;
}

template <class E>
struct is_expand : std::false_type {};
template <class E>
struct binary_op {
  using type = void;
};
template <class Op, class A, class B>
struct binary_op<binary_expr<Op, A, B>> {
  using type = Op;
};
template <int Axis, class A>
struct is_expand<expand_expr<Axis, A>> : std::true_type {};

// Whether the W elements of a lazy mask from p along its last axis are all on.
template <int W, class E>
__device__ __forceinline__ bool all_on(const E& e, const pos<shape_of_t<E>::rank>& p) {
  using X = std::remove_cvref_t<E>;
  using S = shape_of_t<X>;
  if constexpr (!along_run<X>) {
    return static_cast<bool>(e.eval(p));
  } else if constexpr (is_expand<X>::value) {
    return all_on<W>(e.a, e.inner(p));
  } else if constexpr (!std::is_void_v<typename binary_op<X>::type>) {
    using Op = typename binary_op<X>::type;
    using A = typename X::a_type;
    using B = typename X::b_type;
    const auto pa = broadcast_pos<shape_of_t<A>, S>(p);
    const auto pb = broadcast_pos<shape_of_t<B>, S>(p);
    if constexpr (std::is_same_v<Op, op::bit_and> && std::is_same_v<typename X::value_type, bool>) {
      return all_on<W>(e.a, pa) && all_on<W>(e.b, pb);
    } else if constexpr (std::is_same_v<Op, op::bit_or> && std::is_same_v<typename X::value_type, bool>) {
      return all_on<W>(e.a, pa) || all_on<W>(e.b, pb) || each_lane_on<W>(e, p);
    } else if constexpr (ordering<Op> && affine_v<A> && affine_v<B>) {
      long long a0, sa, b0, sb;
      if (!unwrapped_line<W>(e.a, pa, a0, sa) || !unwrapped_line<W>(e.b, pb, b0, sb))
        return each_lane_on<W>(e, p);
      return holds<Op>(a0 - b0) && holds<Op>(a0 - b0 + (W - 1) * (sa - sb));
    } else {
      return each_lane_on<W>(e, p);
    }
  } else {
    return each_lane_on<W>(e, p);
  }
}

// The same questions for a whole tile at once, which a pipelined copy asks once per iteration
// instead of once per 16-byte chunk: an affine expression over its own shape is its value at the
// origin plus a step along each axis (evaluated with wrapping arithmetic, so exact mod 2^32), its
// extremes are at the corners, and where those stay inside int32 no element wrapped and every
// element is the plane's value exactly.
template <int R>
struct plane {
  long long first;
  long long step[R > 0 ? R : 1];
  bool inside;
};

// The least and the greatest of first + the sum over S's axes of step(axis) * c, c from 0 to the
// axis's size - 1: at the corners.
struct extremes {
  long long lowest, highest;
};
template <class S, class StepOf>
__device__ __forceinline__ extremes extremes_of(long long first, StepOf step) {
  extremes x{first, first};
  for (int axis = 0; axis < S::rank; ++axis) {
    const long long span = step(axis) * (S::dim(axis) - 1);
    if (span < 0) x.lowest += span;
    else x.highest += span;
  }
  return x;
}

// E over the shape S it broadcasts to (an axis E does not vary along has step 0).
template <class S, class E>
__device__ __forceinline__ plane<S::rank> plane_of(const E& e) {
  using SE = shape_of_t<E>;
  plane<S::rank> p;
  pos<S::rank> at{};
  at.slot = -1;
  const int first = static_cast<int>(e.eval(broadcast_pos<SE, S>(at)));
  p.first = first;
  for (int axis = 0; axis < S::rank; ++axis) {
    p.step[axis] = 0;
    if (S::dim(axis) == 1) continue;
    at.c[axis] = 1;
    const int next = static_cast<int>(e.eval(broadcast_pos<SE, S>(at)));
    at.c[axis] = 0;
    p.step[axis] = static_cast<int>(static_cast<unsigned>(next) - static_cast<unsigned>(first));
  }
  const extremes x = extremes_of<S>(p.first, [&](int axis) { return p.step[axis]; });
  p.inside = x.lowest >= -2147483648LL && x.highest <= 2147483647LL;
  return p;
}

// Whether every element of a lazy mask is on, decided from the forms above; false where it cannot
// tell (the caller then asks chunk by chunk).
template <class E>
__device__ __forceinline__ bool all_on_tile(const E& e) {
  using X = std::remove_cvref_t<E>;
  using S = shape_of_t<X>;
  if constexpr (S::rank == 0 || constant<X>) {
    pos<S::rank> origin{};
    origin.slot = -1;
    return static_cast<bool>(e.eval(origin));
  } else if constexpr (is_expand<X>::value) {
    return all_on_tile(e.a);
  } else if constexpr (!std::is_void_v<typename binary_op<X>::type>) {
    using Op = typename binary_op<X>::type;
    using A = typename X::a_type;
    using B = typename X::b_type;
    if constexpr (std::is_same_v<Op, op::bit_and> && std::is_same_v<typename X::value_type, bool>) {
      return all_on_tile(e.a) && all_on_tile(e.b);
    } else if constexpr (std::is_same_v<Op, op::bit_or> && std::is_same_v<typename X::value_type, bool>) {
      return all_on_tile(e.a) || all_on_tile(e.b);
    } else if constexpr (ordering<Op> && affine_v<A> && affine_v<B>) {
      const auto a = plane_of<S>(e.a);
      const auto b = plane_of<S>(e.b);
      if (!a.inside || !b.inside) return false;
      const extremes x = extremes_of<S>(a.first - b.first, [&](int axis) { return a.step[axis] - b.step[axis]; });
      if constexpr (std::is_same_v<Op, op::less> || std::is_same_v<Op, op::less_equal>) return holds<Op>(x.highest);
      else return holds<Op>(x.lowest);
    } else {
      return false;
    }
  } else {
    return false;
  }
}

// Whether the fast test applies: lazy offsets and mask, and a run that stays inside one row.
template <class S, int W, class Offsets, class Mask>
inline constexpr bool applies = !has_data_v<Offsets> && !has_data_v<Mask> && S::rank > 0 &&
                                S::dim(S::rank - 1) >= W;

}  // namespace runs

// Whether the W elements from position p of S along its last axis (p.c[last] a multiple of W) are
// all on and at consecutive offsets; `first` is the first one's offset either way. Only where
// runs::applies<S, W, Offsets, Mask>.
template <class S, int W, class Offsets, class Mask>
__device__ __forceinline__ bool whole_run(const Offsets& offsets, const Mask& mask,
                                          const pos<S::rank>& p, int& first) {
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<Mask>;
  const auto po = broadcast_pos<OffS, S>(p);
  first = static_cast<int>(offsets.eval(po));
  bool consecutive;
  if constexpr (!runs::along_run<Offsets>) {
    consecutive = W == 1;
  } else if constexpr (runs::affine_v<Offsets>) {
    consecutive = static_cast<int>(offsets.eval(runs::stepped(po, 1))) ==
                  static_cast<int>(static_cast<unsigned>(first) + 1u);
  } else {
    consecutive = true;
    for (int j = 1; j < W; ++j)
      consecutive = consecutive && static_cast<int>(offsets.eval(runs::stepped(po, j))) ==
                                       static_cast<int>(static_cast<unsigned>(first) + static_cast<unsigned>(j));
  }
  return consecutive && runs::all_on<W>(mask, broadcast_pos<MaskS, S>(p));
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
