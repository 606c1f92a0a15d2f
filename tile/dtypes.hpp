// The element types of `tl` beyond the C++ built-ins: half precision, 8-bit integers, and what
// counts as a floating-point lane.
//
// tl::float16 and tl::bfloat16 are IEEE binary16 and bfloat16, every operation computed in float
// and rounded back to nearest-even, the same bits on both backends. Each backend supplies them
// (its front hooks, read before the front): Eigen::half and Eigen::bfloat16 in the simulator, the
// bits of a __half or __nv_bfloat16 with Eigen's conversions and operations on the GPU.
//
// tl::int8 and tl::uint8 are the C++ fixed-width types, the same on both backends. They are
// storage types: a lane of one takes part in arithmetic as an int32 (C's promotion, where Triton
// keeps int8 and wraps), so `a * b` of two int8 tiles is an int32 tile, and tl::cast<tl::int8>
// keeps the low 8 bits, as Triton's cast does.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tile/config.hpp"

#ifndef TL_FRONT_HOOKS
#error "tile/ needs its backend's front hooks first: include tile/tl.hpp, which reads them"
#endif

namespace tl {
inline namespace TL_ABI {

using float16 = backend::float16;
using bfloat16 = backend::bfloat16;
using int8 = std::int8_t;
using uint8 = std::uint8_t;

template <class T>
inline constexpr bool is_8bit_integer_v =
    std::is_same_v<std::remove_cv_t<T>, int8> || std::is_same_v<std::remove_cv_t<T>, uint8>;

namespace detail {
// tl::dot's accumulator for operands of element type T: int32 for the 8-bit integers, else float.
template <class T>
using dot_acc_t = std::conditional_t<is_8bit_integer_v<T>, int, float>;
}  // namespace detail

// Floating-point lanes: float, double and the two half types. std::is_floating_point is false
// for the half types (and may not be specialized), so `tl` asks this instead where a weak scalar
// takes a tile's type.
template <class T>
inline constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// The name of an element type, as the checker and the diagnostics print it.
template <class T>
constexpr const char* dtype_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return "float32";
  else if constexpr (std::is_same_v<U, double>) return "float64";
  else if constexpr (std::is_same_v<U, float16>) return "float16";
  else if constexpr (std::is_same_v<U, bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<U, int>) return "int32";
  else if constexpr (std::is_same_v<U, int8>) return "int8";
  else if constexpr (std::is_same_v<U, uint8>) return "uint8";
  else if constexpr (std::is_same_v<U, long long>) return "int64";
  else if constexpr (std::is_same_v<U, bool>) return "bool";
  else return "unknown";
}

}  // namespace TL_ABI
}  // namespace tl
