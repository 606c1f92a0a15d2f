// Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011; Random123's philox4x32_10), the counter-based generator behind tl::rand, tl::randn and
// tl::randint, as Triton's python/triton/language/random.py runs it: ten rounds of two 32-bit
// multiplications, no state between calls. Unsigned 32-bit arithmetic only, so both backends give
// the same bits by construction (tests/random_numbers.cpp checks Random123's known answers).
#pragma once

#include <cstdint>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {
namespace math {

struct philox_words {
  std::uint32_t w[4];
};

// The high 32 bits of the 64-bit product.
TL_FN std::uint32_t mul_high(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}

// Philox 4x32 with 10 rounds on counter c and key (k0, k1).
TL_FN philox_words philox4x32_10(philox_words c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t round_a = 0xD2511F53u, round_b = 0xCD9E8D57u;
  constexpr std::uint32_t key_a = 0x9E3779B9u, key_b = 0xBB67AE85u;  // the golden ratio, sqrt(3) - 1
  for (int round = 0; round < 10; ++round) {
    const std::uint32_t c0 = c.w[0], c2 = c.w[2];
    c.w[0] = mul_high(round_b, c2) ^ c.w[1] ^ k0;
    c.w[2] = mul_high(round_a, c0) ^ c.w[3] ^ k1;
    c.w[1] = round_b * c2;
    c.w[3] = round_a * c0;
    k0 += key_a;
    k1 += key_b;
  }
  return c;
}

// What Triton's philox(seed, offset, 0, 0, 0) returns for an int32 seed and offset: the seed
// becomes a 64-bit key, sign-extended (Triton's seed.to(tl.uint64) of an int32), low word first;
// the offset's bits are the counter's first word.
TL_FN philox_words philox_of(int seed, int offset) {
  const auto key = static_cast<std::uint64_t>(static_cast<std::int64_t>(seed));
  return philox4x32_10({{static_cast<std::uint32_t>(offset), 0u, 0u, 0u}},
                       static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32));
}

// Triton's uint_to_uniform_float for 32 bits: the word as an int32 x, folded onto [0, 2^31 - 1]
// (x < 0 becomes -x - 1, that is ~x), converted to float (rounded to nearest) and scaled by the
// largest float s with (2^31 - 1) s < 1 once rounded (Triton 3's constant; Triton 2.1's
// 4.656613e-10 is the next float up, which made 1.0 possible): a float in [0, 1), each step one IEEE
// rounding (the product as __fmul_rn on the GPU, which nvcc never fuses with what follows).
TL_FN float uniform_float_of(std::uint32_t bits) {
  const auto x = static_cast<std::int32_t>(bits);
  const std::int32_t folded = x < 0 ? ~x : x;
  constexpr float scale = 4.6566127342e-10f;
#if defined(__CUDA_ARCH__)
  return __fmul_rn(__int2float_rn(folded), scale);
#else
  return static_cast<float>(folded) * scale;
#endif
}

}  // namespace math
}  // namespace TL_ABI
}  // namespace tl
