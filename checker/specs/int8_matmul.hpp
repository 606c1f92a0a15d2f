// Puzzle 36: a matrix product of int8 operands, a [M, K] with a float scale per row and b [K, N]
// with a float scale per column (the W8A8 quantization of LLM.int8() and SmoothQuant), summed
// exactly in int32 and scaled once.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Int8Matmul, int B0, int B1, int B_K)

namespace tp::bindings {

struct int8_matmul : puzzle_binding<int8_matmul, puzzles::Int8Matmul, solutions::Int8Matmul> {
  using signature = void(tl::ptr<const tl::int8> a, tl::ptr<const tl::int8> b,
                         tl::ptr<const float> a_scale, tl::ptr<const float> b_scale,
                         tl::ptr<float> z, int M, int N, int K);
  using configs = block_list<blocks<16, 16, 32>, blocks<32, 32, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::int8_matmul {

enum size { M, N, K };

// Integers of int8 uniform over all 256 values, or, for a case, fills of their own.
void fill_int8(std::vector<std::int32_t>& values, rng& random) {
  for (auto& v : values) v = static_cast<std::int32_t>(random.below(256)) - 128;
}

// Only -128 and 127, each at random: the largest products of either sign.
case_fill int8_extremes() {
  return [](std::vector<float>& values, const std::vector<long long>&, rng& random) {
    for (float& v : values) v = random.next() & 1 ? 127.0f : -128.0f;
  };
}

// Scales as a per-row or per-column absmax quantizer makes them (absmax / 127): positive, from
// 1/1000 to 1/20, each of its own.
void fill_scales(std::vector<float>& values, rng& random) {
  for (auto& v : values) v = static_cast<float>(0.001 + 0.049 * random.uniform());
}

// b [K, N] whose first half of rows is 100 to 127 and whose second half is -127 to -100: with a
// of the same magnitudes, all positive, each sum climbs past 2^24 and comes back down, so that a
// float32 accumulator, which rounds odd steps past 2^24, ends far from the exact sum.
case_fill up_then_down() {
  return [](std::vector<float>& values, const std::vector<long long>& shape, rng& random) {
    const long long cols = shape.back(), rows = shape.front();
    for (long long i = 0; i < static_cast<long long>(values.size()); ++i) {
      const float magnitude = static_cast<float>(100 + random.below(28));
      values[i] = (i / cols) < rows / 2 ? magnitude : -magnitude;
    }
  };
}

// z[i, j] = a_scale[i] * b_scale[j] * sum_k a[i, k] b[k, j]: the sum exact in 64 bits, the
// product in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long rows = n[M], cols = n[N], depth = n[K];
  const auto& a = t[0].ints;
  const auto& b = t[1].ints;
  for (long long i = 0; i < rows; ++i)
    for (long long j = 0; j < cols; ++j) {
      long long sum = 0;
      for (long long k = 0; k < depth; ++k) sum += 1LL * a[i * depth + k] * b[k * cols + j];
      t[4].values[i * cols + j] = static_cast<float>(static_cast<double>(sum) * t[2].values[i] *
                                                     t[3].values[j]);
    }
}

void describe(puzzle_spec& s) {
  s.summary = "z = a_scale[:, None] * (a @ b) * b_scale[None, :] for int8 a [M, K] and b [K, N], "
              "the products summed in int32; a B0 x B1 tile of z per program, a loop over K in "
              "steps of B_K";
  s.size_names = {"M", "N", "K"};
  s.block_names = {"B0", "B1", "B_K"};
  s.cases = {
      // Catches a mask or an `other` missing on any axis.
      {{1, 1, 1}, "All sizes 1: every tile is one real element."},
      {{32, 32, 32}, "One 32 x 32 @ 32 x 32 product: whole tiles with the larger blocks."},
      // Catches masks off by one.
      {{17, 18, 19}, "Every size past a multiple of 16 by 1, 2 or 3."},
      // Catches the scales swapped (a's indexed by column, b's by row) or one left out.
      {{33, 35, 50}, "M, N and K all different, past multiples of 32; every scale different."},
      // Catches program_id(0) and program_id(1) swapped.
      {{40, 70, 35}, "A tile grid wider than tall."},
      // Catches a loop that drops it (k + B_K <= K).
      {{64, 48, 67}, "K = 67 = 2^6 + 3: a ragged last step along K."},
      // Catches operands read as unsigned bytes, or their signs dropped.
      {{17, 18, 19},
       "a and b only -128 and 127, each of either sign at random: the largest products.",
       {{"a", int8_extremes()}, {"b", int8_extremes()}}},
      // Catches a sum in float32 (operands cast to float, then tl::dot).
      {{20, 24, 4099},
       "a all 100 to 127; b 100 to 127 in its first 2049 rows, -127 to -100 in the rest: every "
       "sum climbs past 2.5e7 (where float32 steps by 2) and comes back to within 1e6 of zero.",
       {{"a", integers_between(100, 127, 1)}, {"b", up_then_down()}}},
      // Catches a loop over K or a tile of k hard-coded up to 8192.
      large_case({19, 21, 8195},
                 "The large tier: K = 8195 = 2^13 + 3, past the benchmarks' largest K (8192), "
                 "a and b 120 to 127 of either sign: sums up to 1.3e8 in int32.",
                 {{"a", integers_between(120, 127, 0)}, {"b", integers_between(120, 127, 0)}}),
      // Catches a grid or a row bound hard-coded up to 8192.
      large_case({8195, 5, 7}, "The large tier: M = 8195 rows, past the benchmarks' 8192."),
      // Catches a grid or a column bound hard-coded up to 8192.
      large_case({5, 8195, 7}, "The large tier: N = 8195 columns, past the benchmarks' 8192."),
  };
  s.blocked_sizes = {{M, 0}, {N, 1}, {K, 2}};
  tensor_spec a{"a", false, sizes_at({M, K}), nullptr, dtype::int8};
  a.fill_ints = fill_int8;
  tensor_spec b{"b", false, sizes_at({K, N}), nullptr, dtype::int8};
  b.fill_ints = fill_int8;
  s.tensors = {a, b, {"a_scale", false, sizes_at({M}), fill_scales},
               {"b_scale", false, sizes_at({N}), fill_scales}, {"z", true, sizes_at({M, N}), nullptr}};
  s.size_bounds = {{2147483647, 1, 1}, {1, 1048560, 1}, {1, 1, 131072}, {46340, 46340, 1},
                   {16383, 1, 131072}, {1, 16383, 131072}};
  s.size_bounds_rule =
      "M * K, K * N and M * N < 2^31, N <= 65535 * 16 (the GPU grid's axis 1), K <= 2^17 (every "
      "sum of 2^17 products of int8 stays in int32)";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[M], b[0]), cdiv(n[N], b[1]), 1};
  };
  s.reference = reference;
  // The kernel's float(sum) * a_scale * b_scale rounds three times where the reference rounds
  // once: within 2e-7 of it, relative; a sum in float32 is off by far more.
  s.rtol = 1e-6;
  s.atol = 1e-6;
  // Each program reads its rows of a, its columns of b and their scales once.
  s.budgets = {each_program_reads_each_element_at_most({"a", "b", "a_scale", "b_scale"}, 1),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::int8_matmul
#endif  // TILEPUZZLES_SPEC
