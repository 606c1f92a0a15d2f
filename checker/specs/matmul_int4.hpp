// Puzzle 15: a 4-bit quantized matrix product (Triton-Puzzles' "quantized matrix mult").
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(MatmulInt4, int B0, int B1, int B_MID)

namespace tp::bindings {

struct matmul_int4 : puzzle_binding<matmul_int4, puzzles::MatmulInt4, solutions::MatmulInt4> {
  using signature = void(tl::ptr<const float> scale, tl::ptr<const int> zero,
                         tl::ptr<const int> weight, tl::ptr<const float> activation,
                         tl::ptr<float> z, int N0, int N1, int MID);
  using configs = block_list<blocks<16, 16, 64>, blocks<32, 16, 128>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <cstdint>

#include "checker/specs/common.hpp"

namespace tp::specs::matmul_int4 {

namespace {

constexpr int fpint = 8;  // 4-bit values per int32
constexpr int group = 8;  // weights per scale and zero point

// Random int32s whose 4-bit values, taken 16 at a time in order, are each a shuffle of 0..15:
// every value appears, and a wrong shift or mask changes the result.
void fill_nibbles(std::vector<std::int32_t>& words, rng& random) {
  int order[16];
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (w % 2 == 0) {
      for (int i = 0; i < 16; ++i) order[i] = i;
      for (int i = 15; i > 0; --i) std::swap(order[i], order[random.below(i + 1)]);
    }
    std::uint32_t bits = 0;
    for (int j = 0; j < fpint; ++j)
      bits |= static_cast<std::uint32_t>(order[(w % 2) * fpint + j]) << (4 * j);
    words[w] = static_cast<std::int32_t>(bits);
  }
}

int nibble(const tensor& t, long long row, long long words_per_row, long long index) {
  const auto bits = static_cast<std::uint32_t>(t.ints[row * words_per_row + index / fpint]);
  return static_cast<int>((bits >> (4 * (index % fpint))) & 0xF);
}

}  // namespace

void describe(puzzle_spec& s) {
  s.summary = "z = (scale * (w - zero)) @ activation with w 4-bit, packed 8 per int32 "
              "(weight [N0, MID/8]), a scale and a packed 4-bit zero point per group of 8; a "
              "B0 x B1 tile of z per program, a loop over MID in steps of B_MID";
  s.size_names = {"N0", "N1", "MID"};
  s.block_names = {"B0", "B1", "B_MID"};
  // One row and column; the classic set's 32 x 64 weights times a 64 x 32 activation; rows and
  // columns past a multiple of 16 or 32 by 1, 2 and 3; MID past a multiple of B_MID = 128 and
  // past 1024. Every pair of packed words holds each 4-bit value 0 to 15 once (fill_nibbles).
  s.cases = {
      // Any wrong shift, nibble order, mask or zero point changes the result.
      {{1, 1, 64},
       "One row and one column: every lane of a block but a corner is masked off. Each pair of "
       "packed words holds every 4-bit value 0 to 15 once."},
      // Catches offsets that ignore program_id on either axis.
      {{32, 32, 64},
       "The classic set's 32 x 64 weights times a 64 x 32 activation, whole blocks."},
      // Catches a mask missing on either axis and an index into weight, scale or zero that is
      // right only in the first step.
      {{17, 18, 128},
       "Rows and columns past a multiple of 16 by 1 and 2, and two steps of k for B_MID = 64."},
      // Catches the masks on k (ks < MID, groups < MID / 8) left out.
      {{33, 35, 192},
       "Rows and columns past a multiple of 16 and 32 by 1 and 3; MID = 192 leaves a half step "
       "for B_MID = 128."},
      // Catches an accumulator or a dequantized weight kept in a half type (float16 overflows
      // past 65504).
      {{33, 35, 128},
       "The activation far from zero (integers of magnitudes 1000 to 1500) and scales of +-1/4 "
       "to +-1: every product and sum exact in float32, sums up to 3e6.",
       {{"activation", integers_between(1000, 1500, 0)},
        {"scale", integers_between(1, 4, 0, 0.25)}}},
      // Catches program_id(0) and program_id(1) swapped.
      {{66, 19, 64}, "A grid that is not square, rows past a multiple of 32 by 2."},
      {{5, 3, 1088},
       "MID = 1088 = 1024 + 64: past loop bounds over k a kernel might hard-code (256, 512, "
       "1024), with a ragged last step for B_MID = 128."},
      // Catches a loop over k, a group index or a word index hard-coded up to 8192.
      large_case({3, 5, 8256},
                 "The large tier: MID = 8256 = 2^13 + 64, past the largest K of the matmul "
                 "benchmarks (8192), with scales of +-1/4 and +-1/2 and a small-integer "
                 "activation (every product and sum exact in float32).",
                 {{"scale", integers_between(1, 2, 0, 0.25)},
                  {"activation", integers_between(1, 3, 0)}}),
      // Catches a grid or a row bound hard-coded up to 8192.
      large_case({8195, 5, 64}, "The large tier: N0 = 8195 rows of weights, past 8192."),
      // Catches a grid or a column bound hard-coded up to 8192.
      large_case({5, 8195, 64}, "The large tier: N1 = 8195 columns, past 8192.")};
  s.blocked_sizes = {{0, 0}, {1, 1}};
  auto packed = [](const std::vector<int>& n) {
    return std::vector<long long>{n[0], n[2] / fpint};
  };
  s.tensors = {
      {"scale", false,
       [](const std::vector<int>& n) { return std::vector<long long>{n[0], n[2] / group}; },
       signed_fill(0.5)},
      {"zero", false,
       [](const std::vector<int>& n) {
         return std::vector<long long>{n[0], n[2] / (group * fpint)};
       },
       nullptr, dtype::int32, fill_nibbles},
      {"weight", false, packed, nullptr, dtype::int32, fill_nibbles},
      {"activation", false, sizes_at({2, 1}), signed_fill()},
      {"z", true, sizes_at({0, 1}), nullptr}};
  s.size_bounds = {{268435455, 1, 64}, {1, 1048560, 2048}, {16383, 8191, 262144},
                   {46340, 46340, 64}};
  s.size_bounds_rule =
      "N0 * MID / 8, MID * N1 and N0 * N1 < 2^31, N1 <= 65535 * 16 (the GPU grid's axis 1), MID <= "
      "2^18";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), cdiv(n[1], b[1]), 1};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const long long N0 = n[0], N1 = n[1], MID = n[2];
    matrix w(N0, MID);
    for (long long i = 0; i < N0; ++i)
      for (long long k = 0; k < MID; ++k) {
        const long long g = k / group;
        const double scale = t[0].values[i * (MID / group) + g];
        const int zero = nibble(t[1], i, MID / (group * fpint), g);
        w(i, k) = scale * (nibble(t[2], i, MID / fpint, k) - zero);
      }
    set_from(t[4], matrix(w * as_matrix(t[3], MID, N1)));
  };
  s.rtol = 1e-4;
  s.atol = 1e-3;
  s.budgets = {each_program_reads_each_element_at_most({"scale", "zero", "weight", "activation"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::matmul_int4
#endif  // TILEPUZZLES_SPEC
