// The bits of half-precision values, converted without a GPU: Eigen's algorithms for
// Eigen::half and Eigen::bfloat16 (their portable paths), so that the host emulation of the GPU
// backend and the host side of the GPU launcher round exactly as the simulator does.
//
// Plain constexpr C++ outside tl's backend namespace: the same functions for every build, and
// tests/bits_and_dtypes.cpp checks them against Eigen.
#pragma once

#include <bit>
#include <cstdint>

namespace tl::half_bits {

// float to IEEE binary16, round to nearest even (overflow to infinity); a NaN becomes 0x7e00
// with its sign, as in Eigen.
constexpr std::uint16_t from_float(float value) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = u & 0x80000000u;
  u ^= sign;
  std::uint16_t out = 0;
  if (u >= (127u + 16u) << 23) {  // overflow, infinity or NaN
    out = u > 0x7f800000u ? 0x7e00 : 0x7c00;
  } else if (u < (113u << 23)) {  // a subnormal half or zero: the float addition rounds
    const std::uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    const float shifted = std::bit_cast<float>(u) + std::bit_cast<float>(magic);
    out = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(shifted) - magic);
  } else {
    const std::uint32_t odd = (u >> 13) & 1u;
    u += 0xc8000fffu;  // rebias the exponent, and half of the rounding
    u += odd;          // ties to even
    out = static_cast<std::uint16_t>(u >> 13);
  }
  return static_cast<std::uint16_t>(out | (sign >> 16));
}

// IEEE binary16 to float, exactly (a NaN keeps its sign and payload).
constexpr float to_float(std::uint16_t h) {
  const std::uint32_t shifted_exponent = 0x7c00u << 13;
  std::uint32_t u = (static_cast<std::uint32_t>(h) & 0x7fffu) << 13;
  const std::uint32_t exponent = shifted_exponent & u;
  u += (127u - 15u) << 23;
  std::uint32_t magnitude = u;
  if (exponent == shifted_exponent) {  // infinity or NaN
    magnitude = u + ((128u - 16u) << 23);
  } else if (exponent == 0) {  // zero or subnormal
    magnitude = std::bit_cast<std::uint32_t>(std::bit_cast<float>(u + (1u << 23)) -
                                             std::bit_cast<float>(113u << 23));
  }
  return std::bit_cast<float>(magnitude | ((static_cast<std::uint32_t>(h) & 0x8000u) << 16));
}

// float to bfloat16, round to nearest even; a NaN becomes 0x7fc0 with its sign, as in Eigen.
constexpr std::uint16_t bfloat16_from_float(float value) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u & 0x80000000u) ? 0xffc0 : 0x7fc0;
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// bfloat16 to float, exactly.
constexpr float bfloat16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace tl::half_bits
