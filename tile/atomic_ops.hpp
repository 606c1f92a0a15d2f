// What each atomic does to one element, once for both backends: the element's new value from
// its old value, the lane's value and (for atomic_cas) the lane's comparand. The simulator
// applies these lane after lane; the GPU uses the hardware atomic where it computes exactly this
// (atomicAdd, atomicMax/Min on int32, atomicExch, atomicCAS) and otherwise loops atomicCAS
// around `apply` itself (float max and min), so NaN and -0 follow tl::maximum/minimum there too.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tile/config.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace atomic_op {

// The bits of a 32-bit lane: atomic_cas compares bits, as the hardware's compare-and-swap does
// (a float -0 does not match +0; a NaN matches the same NaN bits).
template <class T>
TL_FN constexpr std::uint32_t bits_of(T x) {
  static_assert(sizeof(T) == 4, "tl atomics work on 32-bit elements");
  return std::bit_cast<std::uint32_t>(x);
}

struct add {
  static constexpr const char* name = "tl::atomic_add";
  // int32 wraps on the GPU; the simulator reports the sum that leaves int32 (index-overflow),
  // as for every integer `+`.
  template <class T>
  TL_FN static T apply(T old, T v, T) { return static_cast<T>(op::add{}(old, v)); }
};
struct max {
  static constexpr const char* name = "tl::atomic_max";
  template <class T>
  TL_FN static T apply(T old, T v, T) { return static_cast<T>(op::maximum{}(old, v)); }
};
struct min {
  static constexpr const char* name = "tl::atomic_min";
  template <class T>
  TL_FN static T apply(T old, T v, T) { return static_cast<T>(op::minimum{}(old, v)); }
};
struct xchg {
  static constexpr const char* name = "tl::atomic_xchg";
  template <class T>
  TL_FN static T apply(T, T v, T) { return v; }
};
struct cas {
  static constexpr const char* name = "tl::atomic_cas";
  template <class T>
  TL_FN static T apply(T old, T v, T cmp) { return bits_of(old) == bits_of(cmp) ? v : old; }
};

template <class Op>
inline constexpr bool is_atomic_op_v =
    std::is_same_v<Op, add> || std::is_same_v<Op, max> || std::is_same_v<Op, min> ||
    std::is_same_v<Op, xchg> || std::is_same_v<Op, cas>;

}  // namespace atomic_op
}  // namespace TL_ABI
}  // namespace tl
