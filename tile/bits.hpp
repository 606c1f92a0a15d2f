// Bit operations on integer tiles: <<, >> and ^ (& and | are in tile/expr.hpp, shared with masks).
//
// Integer lanes are int32, as in Triton. These are bit operations, not arithmetic:
//   a << k   the low 32 bits of a shifted left (bits shifted out are gone, bit 31 is the sign)
//   a >> k   arithmetic shift right: the sign bit is copied in, as Triton's >> on signed ints
//   a ^ b    exclusive or (on two masks: a logical exclusive or)
// A shift count must be 0 to 31. In the simulator another count is an `index-overflow`
// diagnostic; on the GPU the count is clamped to 32 (shl and shr of PTX). A kernel that passes
// the simulator therefore computes the same bits on both.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tile/expr.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {

namespace lanes {

// The shift count of a lane, checked (simulator) or clamped to 32 (GPU).
template <class K>
TL_FN int shift_count(K k, const char* what) {
  if constexpr (backend::checks_lanes) {
    if (k < K(0) || k > K(31)) backend::shift_count_out_of_range(static_cast<long long>(k), what);
    return static_cast<int>(k);
  } else {
    (void)what;
    return k < K(0) || k > K(31) ? 32 : static_cast<int>(k);
  }
}

// The int32 value of a lane's bits: what a lane holds after a bit operation.
TL_FN std::int32_t int32_bits(std::uint32_t bits) { return static_cast<std::int32_t>(bits); }

}  // namespace lanes

namespace op {

struct shift_left : no_poison {
  template <class A, class K>
  TL_FN A operator()(A a, K k) const {
    const std::uint32_t bits = static_cast<std::uint32_t>(lanes::int32_operand(a, "<<"));
    const int n = lanes::shift_count(k, "<<");
    return static_cast<A>(lanes::int32_bits(n >= 32 ? 0u : bits << n));
  }
};

struct shift_right : no_poison {
  template <class A, class K>
  TL_FN A operator()(A a, K k) const {
    const std::int32_t v = static_cast<std::int32_t>(lanes::int32_operand(a, ">>"));
    const int n = lanes::shift_count(k, ">>");
    // Arithmetic: the sign bit fills in from the left (C++20 defines >> on negative ints so).
    return static_cast<A>(n >= 32 ? (v < 0 ? -1 : 0) : v >> n);
  }
};

struct bit_xor : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, bool> && std::is_same_v<B, bool>) {
      return a != b;
    } else {
      return lanes::int32_operand(a, "^") ^ lanes::int32_operand(b, "^");
    }
  }
};

}  // namespace op

namespace detail {
template <class X>
struct element_of {
  using type = std::remove_cvref_t<X>;
};
template <class X>
  requires is_expr_v<X>
struct element_of<X> {
  using type = value_of_t<X>;
};
template <class X>
inline constexpr bool integer_element_v = is_integer_lane_v<typename element_of<X>::type>;
template <class X>
inline constexpr bool mask_element_v = std::is_same_v<typename element_of<X>::type, bool>;
}  // namespace detail

template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto operator<<(const A& a, const B& b) {
  static_assert(detail::integer_element_v<A> && detail::integer_element_v<B>,
                "tl: << and >> shift integer tiles by integer counts (use tl::cast<int> on a "
                "float or bool tile first)");
  return make_binary<op::shift_left>(a, b, {});
}

template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto operator>>(const A& a, const B& b) {
  static_assert(detail::integer_element_v<A> && detail::integer_element_v<B>,
                "tl: << and >> shift integer tiles by integer counts (use tl::cast<int> on a "
                "float or bool tile first)");
  return make_binary<op::shift_right>(a, b, {});
}

template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto operator^(const A& a, const B& b) {
  static_assert((detail::integer_element_v<A> && detail::integer_element_v<B>) ||
                    (detail::mask_element_v<A> && detail::mask_element_v<B>),
                "tl: ^ takes two integer tiles (bitwise) or two masks (exclusive or)");
  return make_binary<op::bit_xor>(a, b, {});
}

}  // namespace TL_ABI
}  // namespace tl
