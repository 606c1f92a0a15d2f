// tl::sort along an axis, as Triton's tl.sort: Batcher's bitonic sorting network, written once
// here for both backends on backend::partner_lanes (the lane whose index differs in one bit).
//
// Stage k (k = 1 .. log2 N) merges pairs of sorted runs of 2^(k-1) lanes into sorted runs of 2^k,
// alternately ascending and descending so that every pair is bitonic; its steps j = k-1 .. 0 each
// compare every lane with its partner across bit j and keep the smaller or the larger. The order
// is tl::sorts_before's: a strict total order (-0 before +0, NaN last), so the network moves
// every value and duplicates none, and the result has the same bits on both backends.
// log2(N) (log2(N) + 1) / 2 steps of N comparisons; a step across a warp bit costs the GPU a
// trip through shared memory, one across a lane bit a shuffle, one across a register bit nothing.
#pragma once

#include <source_location>

#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/ops.hpp"
#include "tile/scan.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

// tl::sort<1>(x, tl::descending): largest first, as Triton's descending=True.
struct descending_t {
  explicit constexpr descending_t() = default;
};
inline constexpr descending_t descending{};

namespace detail {

// One compare-and-keep step of stage Stage across bit Bit, then the rest of the network.
template <int Axis, int Stage, int Bit, bool Descending, class V>
TL_FN void bitonic_from(V& v, const std::source_location& loc) {
  using S = shape_of_t<V>;
  constexpr int n = S::dim(Axis);
  if constexpr ((1 << Stage) <= n) {
    const auto partner = backend::template partner_lanes<Axis, Bit>(v, loc);
    const auto index = index_along<S, Axis>();
    // The run of 2^Stage lanes sorts ascending where bit Stage of the index is clear (all of
    // them in the last stage), then the whole order flips for a descending sort.
    const auto run_ascending = (index & (1 << Stage)) == (Descending ? (1 << Stage) : 0);
    const auto lower = (index & (1 << Bit)) == 0;
    const auto keep_first = lower == run_ascending;  // this lane keeps the one sorted first
    const auto partner_first = make_binary<op::sorts_before>(partner, v, loc);
    v = where(keep_first == partner_first, partner, v, loc);
    if constexpr (Bit > 0) bitonic_from<Axis, Stage, Bit - 1, Descending>(v, loc);
    else bitonic_from<Axis, Stage + 1, Stage, Descending>(v, loc);
  }
}

template <int Axis, bool Descending, class E>
TL_FN auto sort(const E& x, const std::source_location& loc) {
  static_assert(is_expr_v<E>, "tl::sort takes a tile");
  if constexpr (is_expr_v<E>) {
    static_assert(Axis >= 0 && Axis < shape_of_t<E>::rank,
                  "tl::sort: the axis is out of range for this tile");
    static_assert(!std::is_same_v<value_of_t<E>, bool>,
                  "tl::sort sorts numbers: cast a mask to int first (tl::cast<int>(m))");
    auto v = materialize(x);
    bitonic_from<Axis, 1, 0, Descending>(v, loc);
    return v;
  }
}

}  // namespace detail

// x sorted along Axis, smallest first: -0 before +0, NaN after every number (as torch.sort).
template <int Axis, class E>
TL_FN auto sort(const E& x, std::source_location loc = std::source_location::current()) {
  return detail::sort<Axis, false>(x, loc);
}
template <int Axis, class E>
TL_FN auto sort(const E& x, descending_t, std::source_location loc = std::source_location::current()) {
  return detail::sort<Axis, true>(x, loc);
}

}  // namespace TL_ABI
}  // namespace tl
