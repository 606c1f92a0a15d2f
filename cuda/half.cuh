// Half precision on the GPU: tl::float16 and tl::bfloat16 as the GPU backend holds them, bit for
// bit what the simulator's Eigen::half and Eigen::bfloat16 hold and compute.
//
// A value is the 16 bits of a __half (IEEE binary16) or a __nv_bfloat16, so a tile of them is
// half the registers' bytes and loads and stores move 8 of them per 16-byte access. What they
// mean follows Eigen's types, operation for operation:
//   - from float (and from anything, through float): round to nearest even (cvt.rn.f16.f32,
//     cvt.rn.bf16.f32), a NaN becoming Eigen's quiet NaN with the sign kept (0x7e00, 0x7fc0);
//   - to float: exact (a NaN keeps its sign and payload, as Eigen's conversion does);
//   - + - * / on two of them: computed in float and rounded back (division correctly rounded,
//     as the simulator's IEEE division), never the f16 instructions, whose single rounding can
//     differ from float-then-half in the last bit;
//   - every other mixture converts to float implicitly, as Eigen's implicit operator float.
// The host emulation (cuda/host_emulation.hpp) and the host side of the launcher use the
// portable conversions of cuda/half_bits.hpp, which are Eigen's algorithms; the device uses the
// instructions.
#pragma once

#include "cuda/runtime.cuh"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include <cstdint>
#include <type_traits>

#include "cuda/half_bits.hpp"
#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// ---------------------------------------------------------------------------------------------
// The conversions a kernel uses: the instructions on the device, the portable forms elsewhere.

__host__ __device__ inline std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  if (f != f) return static_cast<std::uint16_t>(0x7e00u | ((__float_as_uint(f) >> 16) & 0x8000u));
  return __half_as_ushort(__float2half_rn(f));
#else
  return half_bits::from_float(f);
#endif
}

__host__ __device__ inline float half_bits_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  // cvt.f32.f16 may not keep a NaN's sign and payload; Eigen's conversion does.
  if ((h & 0x7fffu) > 0x7c00u)
    return __uint_as_float(((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13));
  return __half2float(__ushort_as_half(h));
#else
  return half_bits::to_float(h);
#endif
}

__host__ __device__ inline std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (f != f) return static_cast<std::uint16_t>(0x7fc0u | ((__float_as_uint(f) >> 16) & 0x8000u));
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
  return half_bits::bfloat16_from_float(f);
#endif
}

// Float division as the simulator divides half lanes: IEEE, correctly rounded.
__host__ __device__ inline float divide_rounded(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

// ---------------------------------------------------------------------------------------------
// The two types

struct binary16_format {
  __host__ __device__ static std::uint16_t from_float(float f) { return float_to_half_bits(f); }
  __host__ __device__ static float to_float(std::uint16_t b) { return half_bits_to_float(b); }
  static constexpr std::uint16_t one = 0x3c00;
};
struct bfloat16_format {
  __host__ __device__ static std::uint16_t from_float(float f) { return float_to_bfloat16_bits(f); }
  __host__ __device__ static float to_float(std::uint16_t b) { return half_bits::bfloat16_to_float(b); }
  static constexpr std::uint16_t one = 0x3f80;
};

// A 16-bit float with Eigen's interface: explicit from anything arithmetic (through float, as
// Eigen's template constructor), implicit to float, + - * / between two of it.
template <class Format>
struct alignas(2) half_float {
  std::uint16_t bits;  // the __half's (or __nv_bfloat16's) bits

  half_float() = default;  // trivial: a tile of them is plain registers; T{} is zero
  __host__ __device__ explicit half_float(bool b) : bits(b ? Format::one : 0) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  __host__ __device__ explicit half_float(T v) : bits(Format::from_float(static_cast<float>(v))) {}
  template <class Other>
  __host__ __device__ explicit half_float(half_float<Other> v)
      : bits(Format::from_float(static_cast<float>(v))) {}

  __host__ __device__ static half_float from_bits(std::uint16_t b) {
    half_float h;
    h.bits = b;
    return h;
  }

  __host__ __device__ operator float() const { return Format::to_float(bits); }

  friend __host__ __device__ half_float operator+(half_float a, half_float b) {
    return half_float(static_cast<float>(a) + static_cast<float>(b));
  }
  friend __host__ __device__ half_float operator-(half_float a, half_float b) {
    return half_float(static_cast<float>(a) - static_cast<float>(b));
  }
  friend __host__ __device__ half_float operator*(half_float a, half_float b) {
    return half_float(static_cast<float>(a) * static_cast<float>(b));
  }
  friend __host__ __device__ half_float operator/(half_float a, half_float b) {
    return half_float(divide_rounded(static_cast<float>(a), static_cast<float>(b)));
  }
  // Eigen's unary minus flips the sign bit (tl's own negation computes 0 - x: tile/lanes.hpp).
  friend __host__ __device__ half_float operator-(half_float a) {
    return from_bits(static_cast<std::uint16_t>(a.bits ^ 0x8000u));
  }
};

using float16_t = half_float<binary16_format>;
using bfloat16_t = half_float<bfloat16_format>;

static_assert(sizeof(float16_t) == 2 && std::is_trivially_copyable_v<float16_t> &&
              std::is_trivially_default_constructible_v<float16_t>);

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
