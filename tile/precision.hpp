// The input precision of tl::dot with float32 operands, Triton's `input_precision`:
//
//   tl::dot(a, b, acc)             exact float32 ("ieee", the default)
//   tl::dot(a, b, acc, tl::tf32)   each operand rounded to TF32 first (Triton's "tf32"): on the GPU
//                                  the tensor cores' float32 mode, mma.sync ... .tf32
//
// TF32 keeps float32's 8 exponent bits and 10 of its 23 mantissa bits. The rounding is the one
// the GPU's conversion does (cvt.rna.tf32.f32, before the operands reach the tensor cores): to
// nearest, ties away from zero; NaN stays NaN and infinities stay infinite; a value within half a
// TF32 step of the largest float rounds to infinity, as the carry into the exponent gives. The
// simulator applies this same function to each operand and then runs the exact dot, so the two
// backends differ only in how the products are summed (docs/tl.md states the tolerance).
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {

// The tags, as values: tl::dot(a, b, acc, tl::tf32).
struct ieee_t {
  explicit constexpr ieee_t() = default;
};
struct tf32_t {
  explicit constexpr tf32_t() = default;
};
inline constexpr ieee_t ieee{};
inline constexpr tf32_t tf32{};

template <class P>
inline constexpr bool is_input_precision_v =
    std::is_same_v<std::remove_cvref_t<P>, ieee_t> || std::is_same_v<std::remove_cvref_t<P>, tf32_t>;

// x rounded to TF32 (the low 13 mantissa bits cleared), as cvt.rna.tf32.f32 rounds it.
#if TL_BACKEND_CPU
inline
#else
__host__ __device__ inline
#endif
    constexpr float round_to_tf32(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // NaN and infinities as they are
  // Adding half a TF32 step to the magnitude and truncating rounds to nearest with ties away
  // from zero; a carry out of the mantissa moves to the next binade (or to infinity).
  return std::bit_cast<float>((bits + 0x1000u) & 0xffffe000u);
}

}  // namespace TL_ABI
}  // namespace tl
