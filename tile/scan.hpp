// Scans along an axis, as in triton.language: tl::associative_scan, tl::cumsum, tl::cumprod.
//
// One algorithm, written once here for both backends: recursive doubling over the bits of the
// index along the axis, lowest bit first. Before the step of bit b, each lane holds the scan of
// its aligned block of 2^b lanes up to itself (`prefix`) and the combination of the whole block
// (`total`). The step fetches the total of the partner block (the lanes whose index differs in
// bit b: backend::partner_lanes) and, where that block comes first, combines it in front of the
// lane's prefix. Which values are combined, and in which order, depends on the index alone and
// never on where a backend keeps a lane: a float cumsum has the same bits in the simulator and on
// the GPU. The price is log2(N) steps of N combines where a sequential scan does N - 1 (the
// GPU's step is a renaming of registers, a shuffle or a trip through shared memory, by the bit).
#pragma once

#include <source_location>
#include <type_traits>

#include "tile/expr.hpp"
#include "tile/ops.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

// tl::cumsum<1>(x, tl::reverse): the scan from the end of the axis, as Triton's reverse=True.
struct reverse_t {
  explicit constexpr reverse_t() = default;
};
inline constexpr reverse_t reverse{};

namespace detail {

template <int Trailing, class E>
TL_FN auto with_trailing_axes(const E& e) {
  if constexpr (Trailing == 0) return e;
  else return with_trailing_axes<Trailing - 1>(expand_dims<shape_of_t<E>::rank>(e));
}

// Each lane's index along Axis of a tile of shape S, as a lazy tile that broadcasts to S.
template <class S, int Axis>
TL_FN auto index_along() {
  return with_trailing_axes<S::rank - 1 - Axis>(arange<S::dim(Axis)>());
}

template <int Axis, class E>
constexpr bool check_scan() {
  static_assert(is_expr_v<E>, "tl: scans take a tile");
  if constexpr (is_expr_v<E>) {
    static_assert(Axis >= 0 && Axis < shape_of_t<E>::rank,
                  "tl: the scan axis is out of range for this tile");
    return Axis >= 0 && Axis < shape_of_t<E>::rank;
  }
  return false;
}

// Whether the partner block of bit Bit comes before each lane's block, in the scan's order.
template <class S, int Axis, int Bit, bool Reverse>
TL_FN auto partner_block_first() {
  return (index_along<S, Axis>() & (1 << Bit)) == (Reverse ? 0 : (1 << Bit));
}

// The steps of bits Bit, Bit + 1, ... of a scan with any associative combine function.
template <int Axis, int Bit, bool Reverse, class P, class F>
TL_FN void scan_from_bit(P& prefix, P& total, const F& combine, const std::source_location& loc) {
  using S = shape_of_t<P>;
  if constexpr ((1 << Bit) < S::dim(Axis)) {
    const auto partner = backend::template partner_lanes<Axis, Bit>(total, loc);
    const auto first = partner_block_first<S, Axis, Bit, Reverse>();
    prefix = where(first, combine(partner, prefix), prefix, loc);
    if constexpr ((2 << Bit) < S::dim(Axis))  // the last step's totals are not needed
      total = where(first, combine(partner, total), combine(total, partner), loc);
    scan_from_bit<Axis, Bit + 1, Reverse>(prefix, total, combine, loc);
  }
}

// The same for an operation with an identity (0 for +, 1 for *): the identity stands in for the
// partner where it does not come first, so every sum the scan makes is one of the result's
// prefixes or the total of an aligned block, and none is made only to be thrown away (in the
// simulator, a sum of int32 lanes that leaves int32 is reported wherever it is made).
template <int Axis, int Bit, bool Reverse, class Op, class P>
TL_FN void scan_with_identity_from_bit(P& prefix, P& total, value_of_t<P> identity,
                                       const std::source_location& loc) {
  using S = shape_of_t<P>;
  if constexpr ((1 << Bit) < S::dim(Axis)) {
    const auto partner = backend::template partner_lanes<Axis, Bit>(total, loc);
    const auto first = partner_block_first<S, Axis, Bit, Reverse>();
    prefix = make_binary<Op>(where(first, partner, identity, loc), prefix, loc);
    if constexpr ((2 << Bit) < S::dim(Axis)) total = make_binary<Op>(partner, total, loc);
    scan_with_identity_from_bit<Axis, Bit + 1, Reverse, Op>(prefix, total, identity, loc);
  }
}

template <int Axis, bool Reverse, class Op, class E>
TL_FN auto scan_with_identity(const E& x, value_of_t<E> identity, const std::source_location& loc) {
  auto prefix = materialize(x);
  auto total = prefix;
  scan_with_identity_from_bit<Axis, 0, Reverse, Op>(prefix, total, identity, loc);
  return prefix;
}

// -0, not +0: -0 + x is x for every x, -0 and +0 included.
template <class T>
TL_FN T additive_identity() {
  if constexpr (std::is_integral_v<T>) return T(0);
  else return static_cast<T>(-0.0f);
}

}  // namespace detail

// The inclusive scan of x along Axis with an associative function of two tiles, as Triton's
// tl.associative_scan(x, Axis, combine_fn): lane i of the result combines lanes 0, 1, ..., i in
// that order (with tl::reverse: lanes N-1, N-2, ..., i), grouped as the recursive doubling above
// groups them, which only an associative function cannot tell apart. combine is called with data
// tiles and returns one of the same type, such as [](auto a, auto b) { return tl::maximum(a, b); }.
template <int Axis, class E, class F>
TL_FN auto associative_scan(const E& x, const F& combine,
                            std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>()) {
    auto prefix = materialize(x);
    auto total = prefix;
    detail::scan_from_bit<Axis, 0, false>(prefix, total, combine, loc);
    return prefix;
  }
}
template <int Axis, class E, class F>
TL_FN auto associative_scan(const E& x, const F& combine, reverse_t,
                            std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>()) {
    auto prefix = materialize(x);
    auto total = prefix;
    detail::scan_from_bit<Axis, 0, true>(prefix, total, combine, loc);
    return prefix;
  }
}

// Running sums along Axis, as Triton's tl.cumsum(x, Axis): lane i holds x[0] + ... + x[i].
template <int Axis, class E>
TL_FN auto cumsum(const E& x, std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>())
    return detail::scan_with_identity<Axis, false, op::add>(
        x, detail::additive_identity<value_of_t<E>>(), loc);
}
template <int Axis, class E>
TL_FN auto cumsum(const E& x, reverse_t, std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>())
    return detail::scan_with_identity<Axis, true, op::add>(
        x, detail::additive_identity<value_of_t<E>>(), loc);
}

// Running products along Axis, as Triton's tl.cumprod(x, Axis).
template <int Axis, class E>
TL_FN auto cumprod(const E& x, std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>())
    return detail::scan_with_identity<Axis, false, op::mul>(x, value_of_t<E>(1), loc);
}
template <int Axis, class E>
TL_FN auto cumprod(const E& x, reverse_t, std::source_location loc = std::source_location::current()) {
  if constexpr (detail::check_scan<Axis, E>())
    return detail::scan_with_identity<Axis, true, op::mul>(x, value_of_t<E>(1), loc);
}

}  // namespace TL_ABI
}  // namespace tl
