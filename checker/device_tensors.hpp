// A tensor as the bytes a GPU kernel reads and writes, in its own dtype: float32, int32, int8 and
// uint8 as they are, float16 and bfloat16 as their 16-bit patterns, rounded to nearest even exactly as the
// simulator's Eigen::half and Eigen::bfloat16 round (cuda/half_bits.hpp). Shared by the GPU
// launcher (checker/gpu_launch.cuh) and its host emulation (tests/gpu/launch_emulated.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/launch.hpp"
#include "cuda/half_bits.hpp"

namespace tp::device_tensors {

inline std::size_t byte_count(const tensor& t) {
  return static_cast<std::size_t>(t.count()) * element_bytes(t.dtype);
}

// The tensor's elements in its dtype. An output goes in poisoned, so that an element the kernel
// never writes cannot pass: NaN for the float dtypes, INT_MIN for int32, -128 and 255 for int8 and
// uint8 (the one value a kernel that writes it cannot be told from one that does not); a zeroed
// one (tensor::zeroed) as zeros.
inline std::vector<unsigned char> bytes_of(const tensor& t) {
  const auto n = static_cast<std::size_t>(t.count());
  std::vector<unsigned char> bytes(n * element_bytes(t.dtype));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const bool poisoned = t.output && !t.zeroed;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char* at = bytes.data() + i * element_bytes(t.dtype);
    switch (t.dtype) {
      case dtype::int32: {
        const std::int32_t v = t.zeroed ? 0
                               : poisoned || i >= t.ints.size() ? std::numeric_limits<std::int32_t>::min()
                                                                : t.ints[i];
        std::memcpy(at, &v, sizeof v);
        break;
      }
      case dtype::int8:
      case dtype::uint8: {
        const bool is_signed = t.dtype == dtype::int8;
        const std::int32_t v = t.zeroed ? 0
                               : poisoned || i >= t.ints.size() ? (is_signed ? -128 : 255)
                                                                : t.ints[i];
        if (is_signed ? v < -128 || v > 127 : v < 0 || v > 255)
          throw std::logic_error("the puzzle's " + t.name + " holds " + std::to_string(v) +
                                 ", outside " + dtype_name(t.dtype));
        *at = static_cast<unsigned char>(v);
        break;
      }
      case dtype::float16:
      case dtype::bfloat16: {
        const float f = poisoned ? nan : t.zeroed ? 0.0f : t.values[i];
        const std::uint16_t h = t.dtype == dtype::float16 ? tl::half_bits::from_float(f)
                                                          : tl::half_bits::bfloat16_from_float(f);
        std::memcpy(at, &h, sizeof h);
        break;
      }
      default: {
        const float f = poisoned ? nan : t.zeroed ? 0.0f : t.values[i];
        std::memcpy(at, &f, sizeof f);
      }
    }
  }
  return bytes;
}

// An output's elements back from the bytes the kernel wrote (halves become floats exactly).
inline void read_back(tensor& t, const unsigned char* bytes) {
  const auto n = static_cast<std::size_t>(t.count());
  if (t.dtype == dtype::int32) {
    t.ints.resize(n);
    std::memcpy(t.ints.data(), bytes, n * sizeof(std::int32_t));
    return;
  }
  if (t.dtype == dtype::int8 || t.dtype == dtype::uint8) {
    t.ints.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      t.ints[i] = t.dtype == dtype::int8 ? static_cast<std::int32_t>(static_cast<std::int8_t>(bytes[i]))
                                         : static_cast<std::int32_t>(bytes[i]);
    return;
  }
  t.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (t.dtype == dtype::float32) {
      std::memcpy(&t.values[i], bytes + i * 4, 4);
    } else {
      std::uint16_t h;
      std::memcpy(&h, bytes + i * 2, 2);
      t.values[i] = t.dtype == dtype::float16 ? tl::half_bits::to_float(h)
                                              : tl::half_bits::bfloat16_to_float(h);
    }
  }
}

// Empty when a kernel parameter of dtype `expected` can take the tensor, else why not.
inline std::string dtype_mismatch(const tensor& t, dtype expected) {
  if (t.dtype == expected) return {};
  return std::string("the kernel takes ") + t.name + " as " + dtype_name(expected) +
         " but the puzzle's tensor is " + dtype_name(t.dtype);
}

}  // namespace tp::device_tensors
