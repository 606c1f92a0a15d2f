// Puzzle 16: multi-head flash attention forward, float16 and bfloat16, causal or not.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(FlashAttention, class T, int B0, int B1, int D)

namespace tp::bindings {

// A typed binding: each configuration names the element type (float16 or bfloat16) and the block
// sizes, and the signature follows the element type.
struct flash_attention
    : typed_puzzle_binding<flash_attention, puzzles::FlashAttention, solutions::FlashAttention> {
  template <class C, class T = typename C::element_type>
  using signature_for = void(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                             tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL);
  using configs = block_list<typed_blocks<tl::float16, 16, 16, 64>,
                             typed_blocks<tl::bfloat16, 32, 16, 64>,
                             typed_blocks<tl::float16, 16, 32, 128>,
                             typed_blocks<tl::bfloat16, 16, 16, 128>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::flash_attention {

void describe(puzzle_spec& s) {
  s.summary = "o = softmax(q kᵀ / sqrt(d)) v for q, k, v of [Z, H, N, HEAD_DIM] in float16 and "
              "bfloat16, causal or not; B0 queries of one batch and head per program, one loop "
              "over the keys in steps of B1";
  s.size_names = {"Z", "H", "N", "HEAD_DIM", "CAUSAL"};
  s.block_names = {"B0", "B1", "D"};
  // Masks with one real lane; N past multiples of 16, 32 and 64; several batches and heads;
  // head_dim 64 and 128, with and without the causal mask; for each head_dim, the inputs that
  // break an online softmax: scores far from zero, the maximum last. The far scores come first,
  // so that a running maximum from 0 fails there, with NaN, on every seed, before float16's
  // rounding of its tiny p (2^-20 and below) makes a wrong result of it in another case.
  // Every score of a query far from zero: k all negative (magnitudes 4 to 5), and each query's q
  // of one sign (magnitudes 4 to 5).
  const std::vector<std::pair<std::string, case_fill>> far_scores = {
      {"q", magnitudes_with_row_sign(4.0, 5.0)}, {"k", magnitudes_between(4.0, 5.0, -1)}};
  // q positive (1 to 2), k small noise but for the last key of each head, all 8: every query's
  // maximum score arrives in the last block of keys.
  const std::vector<std::pair<std::string, case_fill>> maximum_last = {
      {"q", magnitudes_between(1.0, 2.0, 1)}, {"k", peak_in_last_row(8.0, 1.0)}};
  // Scores spread over thousands far below zero, v near the float16 range: q integers 40 to 60,
  // every key -60 but each head's last, -50; exact in float16, bfloat16 and float32.
  const std::vector<std::pair<std::string, case_fill>> thousands_below = {
      {"q", integers_between(40, 60, 1)},
      {"k", rows_equal_but_last(-60.0, -50.0)},
      {"v", magnitudes_between(3e4, 6e4, 0)}};
  constexpr const char* far_below =
      "Scores spread over thousands, all far below zero (q integers 40 to 60, every key -60 but "
      "each head's last, -50: about -2e4 to -3.4e4 after the 1/sqrt(d) scale, every key tied but "
      "the last, which outscores them by thousands), and v near the float16 range (magnitudes "
      "3e4 to 6e4).";
  s.cases = {
      // Catches a running maximum that starts at 0 (0 / 0) and no running maximum at all (inf /
      // inf).
      {{2, 1, 35, 64, 0},
       "Every score of a query lies far from zero: k is all negative (magnitudes 4 to 5) and "
       "each query's q has magnitudes 4 to 5 of one sign, so a query with q > 0 has every score "
       "below -128 (exp of each underflows to 0) and one with q < 0 every score above +128 (exp "
       "overflows).",
       far_scores},
      // Catches masks left out, and masked keys let into the softmax (a key loaded as 0 scores 0,
      // not -inf, and takes weight from the one real key).
      {{1, 1, 1, 64, 0},
       "One query and one key: every lane of a block but the first is masked off."},
      // Catches the causal mask left out or off by one (with cols < rows the first query sees no
      // key: -inf - -inf) and a head offset that ignores program_id(1).
      {{1, 2, 17, 64, 1}, "Causal, two heads, N = 17."},
      // Catches a head offset that counts heads but not batches (program_id(1) runs over Z * H)
      // and a causal mask applied when CAUSAL = 0.
      {{2, 2, 34, 64, 0}, "Two batches of two heads, N = 34, not causal."},
      {{1, 1, 67, 64, 1},
       "N = 67 = 2^6 + 3, causal: several blocks of keys with a ragged last one for every B1, "
       "and a ragged last block of queries for every B0."},
      {{1, 1, 1, 128, 1},
       "One query and one key at head_dim 128, causal: the masks of the head_dim 128 kernels "
       "with one real lane."},
      // Catches a running maximum that starts at 0 and no running maximum at all.
      {{1, 2, 35, 128, 0},
       "Scores far from zero, as in the first case, at head_dim 128 (magnitudes above 181).",
       far_scores},
      // Catches a row stride of 64 instead of D in q, k, v or o, and the 1/sqrt(d) scale of
      // head_dim 64.
      {{2, 1, 35, 128, 0}, "Two batches, N = 35, head_dim 128."},
      // Catches the causal mask and the head offset at head_dim 128.
      {{1, 2, 50, 128, 1}, "Causal at head_dim 128, two heads, N = 50."},
      // Catches acc or l_i not rescaled by alpha when the maximum grows (the earlier keys keep
      // their full weight).
      {{1, 2, 67, 64, 0},
       "q is positive (1 to 2) and k small noise (about -1 to 1) but for the last key of each "
       "head, all 8: every query's maximum score (about 96) arrives in the last block of keys, "
       "far above the rest.",
       maximum_last},
      // Catches acc or l_i not rescaled by alpha.
      {{1, 1, 67, 128, 0},
       "The maximum arriving in the last block of keys, as above, at head_dim 128 (scores about "
       "136).",
       maximum_last},
      // Catches a running maximum that starts at a finite floor such as -1e4 (every exp
      // underflows: 0 / 0), masked or causal keys scored -1e4 instead of -inf (they win the
      // softmax), and an accumulator kept in float16 (a sum of v passes 65504).
      {{1, 2, 35, 64, 1}, std::string(far_below) + " Causal, head_dim 64.", thousands_below},
      {{2, 1, 35, 128, 0}, std::string(far_below) + " Head_dim 128.", thousands_below},
      // Catches a loop over keys, a causal bound or a grid hard-coded up to 1024.
      large_case({1, 1, 1027, 64, 1},
                 "The large tier: 1027 = 2^10 + 3 queries and keys, causal, head_dim 64, the "
                 "last key outscoring every other (q positive, that key all 8): the last "
                 "query's output is that key's v.",
                 maximum_last),
      // Catches a loop over keys or a grid hard-coded up to 1024.
      large_case({1, 1, 1027, 128, 0},
                 "The large tier: 1027 = 2^10 + 3 queries and keys, not causal, head_dim 128, "
                 "the last key outscoring every other: every output is about that key's v.",
                 maximum_last),
      // Catches a head offset or a grid hard-coded up to 128 heads.
      large_case({2, 67, 19, 64, 0},
                 "The large tier: 2 batches of 67 heads, 134 in all.")};
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[3] == b[2]; };
  s.case_fits_rule = "HEAD_DIM = D";
  auto qkv = sizes_at({0, 1, 2, 3});
  // Large scores (q up to about 40 after outliers): exp without the running maximum overflows.
  s.tensors = {{"q", false, qkv, signed_fill(10.0)},
               {"k", false, qkv, signed_fill()},
               {"v", false, qkv, signed_fill()},
               {"o", true, qkv, nullptr}};
  s.size_bounds = {{1, 1, 65536, 64, 1}, {1, 1, 65536, 128, 0}, {1, 65535, 512, 64, 0},
                   {65535, 1, 256, 128, 1}, {4, 16, 32768, 64, 0}};
  s.size_bounds_rule =
      "Z * H * N * HEAD_DIM < 2^31, Z * H <= 65535 (the GPU grid's axis 1), N <= 2^16";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[2], b[0]), n[0] * n[1], 1};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const long long heads = 1LL * n[0] * n[1], N = n[2], d = n[3];
    const bool causal = n[4] != 0;
    for (long long h = 0; h < heads; ++h) {
      const long long first = h * N * d;
      const matrix q = as_matrix(t[0], N, d, first), k = as_matrix(t[1], N, d, first);
      const matrix v = as_matrix(t[2], N, d, first);
      matrix scores = q * k.transpose() / std::sqrt(static_cast<double>(d));
      if (causal)
        for (long long i = 0; i < N; ++i)
          for (long long j = i + 1; j < N; ++j) scores(i, j) = -INFINITY;
      const Eigen::VectorXd row_max = scores.rowwise().maxCoeff();
      const matrix e = (scores.colwise() - row_max).array().exp().matrix();
      const Eigen::VectorXd row_sum = e.rowwise().sum();
      set_from(t[3], matrix((e * v).array().colwise() / row_sum.array()), first);
    }
  };
  // float16 and bfloat16 round p before p @ v and round o (half an ulp: 2^-11 and 2^-8
  // relative); the solution's worst errors are about 2.4e-4 and 2.2e-3 relative.
  s.tolerances = {{dtype::float16, 2e-3, 2e-3}, {dtype::bfloat16, 1e-2, 1e-2}};
  s.budgets = {each_program_reads_each_element_at_most({"k", "v"}, 1),
               each_element_read_at_most({"q"}, 1), each_element_written_at_most({"o"}, 1)};
}

}  // namespace tp::specs::flash_attention
#endif  // TILEPUZZLES_SPEC
