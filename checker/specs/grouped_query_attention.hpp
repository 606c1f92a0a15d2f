// Puzzle 35: grouped-query attention, q of [H, N, HEAD_DIM] and k, v of [H_KV, N, HEAD_DIM] in
// float32, H = G * H_KV; a program computes a block of queries of the G heads that share a kv head.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(GroupedQueryAttention, int B0, int B1, int G, int D)

namespace tp::bindings {

struct grouped_query_attention
    : puzzle_binding<grouped_query_attention, puzzles::GroupedQueryAttention,
                     solutions::GroupedQueryAttention> {
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                         tl::ptr<float> o, int H, int H_KV, int N, int HEAD_DIM);
  // G = 4 first (the set a wrong kernel of the corpus is checked with: two heads of a group and
  // two groups tell h / G from h % H_KV, and a program that loads its keys once per query head
  // from one that loads them once), then plain multi-head attention (G = 1) and a group of 8.
  // Blocks of queries shorter than the blocks of keys, longer, and as long.
  using configs = block_list<blocks<16, 32, 4, 32>, blocks<32, 16, 1, 64>, blocks<16, 16, 8, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::grouped_query_attention {

enum size { H, H_KV, N, HEAD_DIM };

// o[h] = softmax(q[h] k[h / G]ᵀ / sqrt(HEAD_DIM)) v[h / G] for each query head h, in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long heads = n[H], group = n[H] / n[H_KV], rows = n[N], dim = n[HEAD_DIM];
  for (long long h = 0; h < heads; ++h) {
    const long long kv = h / group;
    const matrix q = as_matrix(t[0], rows, dim, h * rows * dim);
    const matrix k = as_matrix(t[1], rows, dim, kv * rows * dim);
    const matrix v = as_matrix(t[2], rows, dim, kv * rows * dim);
    const matrix scores = q * k.transpose() / std::sqrt(static_cast<double>(dim));
    const Eigen::VectorXd row_max = scores.rowwise().maxCoeff();
    const matrix e = (scores.colwise() - row_max).array().exp().matrix();
    const Eigen::VectorXd row_sum = e.rowwise().sum();
    set_from(t[3], matrix((e * v).array().colwise() / row_sum.array()), h * rows * dim);
  }
}

// Each kv head's keys and values are loaded once by each of its cdiv(N, B0) programs, however
// many query heads share them.
budget keys_read_once_per_group() {
  budget b;
  b.description =
      "each element of k and v is loaded at most cdiv(N, B0) times over the whole launch: once by "
      "each program of its kv head (one per block of B0 queries), which serves all G query heads "
      "of the group with it; a kernel that walks the keys once per query head loads them G times "
      "as often";
  b.check = [](const run_facts& f) -> std::optional<std::string> {
    const long long allowed = cdiv(f.sizes[N], f.blocks[0]);
    for (const char* name : {"k", "v"}) {
      const auto& buf = f.buffer(name);
      if (buf.counters.max_element_reads <= allowed) continue;
      for (long long i = 0; i < buf.count(); ++i) {
        if (buf.shadow[i].reads <= allowed) continue;
        return std::string(name) + buf.coords_of(i) + " was loaded " +
               std::to_string(buf.shadow[i].reads) + " times (at most cdiv(N, B0) = " +
               std::to_string(allowed) + " allowed: once by each program of its kv head); " +
               name + " was loaded " + std::to_string(buf.counters.loads) +
               " times in all for its " + std::to_string(buf.count()) +
               " elements. A program loads each block of keys and values of its kv head once and "
               "uses it for the queries of all G heads of the group (a [G * B0, D] tile of "
               "queries), not once per query head.";
      }
    }
    return std::nullopt;
  };
  return b;
}

void describe(puzzle_spec& s) {
  s.summary = "o[h] = softmax(q[h] k[h / G]ᵀ / sqrt(HEAD_DIM)) v[h / G] for q, o of [H, N, "
              "HEAD_DIM] and k, v of [H_KV, N, HEAD_DIM] in float32, H = G * H_KV; a program "
              "per kv head and block of B0 queries, for all G query heads of the group at once";
  s.size_names = {"H", "H_KV", "N", "HEAD_DIM"};
  s.block_names = {"B0", "B1", "G", "D"};
  // Every score of a query far from zero: k all negative (integers 4 to 5), each query's q of
  // one sign (integers 4 to 5). Integers, because float32 scores of 100 to 200 computed from
  // arbitrary values are off by about 1e-4 (each weight relatively as much), past the tolerance.
  // At head_dim 32 the scale still rounds each score once (by up to 8e-6 at 140), and so each
  // weight: v positive (1 to 2) keeps o a weighted mean that no sign cancels, within 2e-5 of the
  // reference relatively (with v of both signs a small o[h, i] summed over 35 keys was off by
  // 3e-4 relatively on one seed of 41).
  const std::vector<std::pair<std::string, case_fill>> far_scores = {
      {"q", integers_with_row_sign(4, 5)},
      {"k", integers_between(4, 5, -1)},
      {"v", magnitudes_between(1.0, 2.0, 1)}};
  constexpr const char* far_about =
      "Every score of a query lies far from zero: k is all negative (integers -5 to -4) and each "
      "query's q integers 4 to 5 of one sign, so a query with q > 0 has every score below -90 "
      "(exp of each underflows to 0) and one with q < 0 every score above +90 (exp overflows); "
      "v is positive (1 to 2).";
  // Every score far below -1e4 and every key tied: q integers 40 to 60, k all -60; exact in
  // float32 (sums below 2^24), each query's scores equal, so o[h, i] is the mean of v[h / G].
  const std::vector<std::pair<std::string, case_fill>> thousands_below = {
      {"q", integers_between(40, 60, 1)}, {"k", integers_between(60, 60, -1)}};
  constexpr const char* thousands_about =
      "Every score lies far below -1e4 (q integers 40 to 60, every element of k -60: about -1.4e4 "
      "to -2.9e4 after the 1/sqrt(HEAD_DIM) scale, exact) and a query's scores all tie, so o[h, i] "
      "is the mean of the rows of v[h / G]: a key past N masked with a finite padding such as "
      "-1e4 instead of -inf outscores every real one.";
  // Scores spread over tens: the running maximum moves from block to block.
  const std::vector<std::pair<std::string, case_fill>> spread_scores = {
      {"q", values_around(0.0, 2.0)}, {"k", values_around(0.0, 2.0)}};
  constexpr const char* spread_about =
      "q and k spread about 2: scores spread over tens, so that the running maximum moves from "
      "block to block of keys.";
  s.cases = {
      // Catches masked keys let into the softmax (a key loaded as 0 scores 0, not -inf).
      {{1, 1, 1, 64}, "One query head, one kv head, one query and one key: every lane of a block "
                      "but the first is masked off."},
      {{4, 1, 1, 32},
       "Multi-query attention (four query heads, one kv head), one query and one key."},
      // Catches query head h paired with kv head h % H_KV instead of h / G, kv head 0 for every
      // group, and keys past N let in (a ragged last block of keys and of queries).
      {{8, 2, 35, 32},
       "Eight query heads in two groups of four (heads 0-3 read kv head 0, heads 4-7 kv head 1), "
       "N = 35 = 2^5 + 3."},
      {{4, 1, 67, 32},
       "Multi-query attention: four query heads share the one kv head, N = 67 = 2^6 + 3."},
      {{12, 3, 50, 32}, "Twelve query heads in three groups of four, N = 50."},
      {{2, 2, 34, 64}, "Multi-head attention (G = 1): two heads, N = 34, a tail of 2."},
      {{5, 5, 67, 64}, "Multi-head attention (G = 1): five heads, N = 67 = 2^6 + 3."},
      {{8, 1, 50, 64}, "Multi-query attention: eight query heads share the one kv head, N = 50."},
      {{16, 2, 33, 64},
       "Sixteen query heads in two groups of eight, N = 33 = 2^5 + 1: one key in the last block."},
      // Catches a running maximum that starts at 0 (0 / 0) and none at all (inf / inf).
      {{8, 2, 35, 32}, std::string(far_about) + " Two groups of four.", far_scores},
      {{3, 3, 35, 64}, std::string(far_about) + " Three heads, G = 1.", far_scores},
      {{8, 1, 35, 64}, std::string(far_about) + " One group of eight.", far_scores},
      // Catches a padding or initial maximum that is not -inf (such as -1e4): masked keys win.
      {{8, 2, 35, 32}, std::string(thousands_about) + " Two groups of four.", thousands_below},
      {{2, 2, 35, 64}, std::string(thousands_about) + " Two heads, G = 1.", thousands_below},
      {{16, 2, 35, 64}, std::string(thousands_about) + " Two groups of eight.", thousands_below},
      // Catches l_i or acc not rescaled when the maximum grows.
      {{8, 2, 100, 32}, std::string(spread_about) + " Two groups of four, N = 100.",
       spread_scores},
      {{2, 2, 100, 64}, std::string(spread_about) + " Two heads, G = 1, N = 100.", spread_scores},
      // Catches a loop over keys or a grid hard-coded up to 1024 keys.
      large_case({8, 2, 1027, 32},
                 "The large tier: eight query heads in two groups of four, N = 1027 = 2^10 + 3."),
      large_case({1, 1, 1029, 64}, "The large tier: one head, N = 1029 = 2^10 + 5."),
      // Catches a grid or a head offset hard-coded up to 128 query heads or 16 kv heads.
      large_case({136, 17, 19, 64},
                 "The large tier: 136 query heads in 17 groups of eight, N = 19."),
  };
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) {
    return n[H] == b[2] * n[H_KV] && n[HEAD_DIM] == b[3];
  };
  s.case_fits_rule = "H = G * H_KV, HEAD_DIM = D";
  s.tensors = {{"q", false, sizes_at({H, N, HEAD_DIM}), signed_fill()},
               {"k", false, sizes_at({H_KV, N, HEAD_DIM}), signed_fill()},
               {"v", false, sizes_at({H_KV, N, HEAD_DIM}), signed_fill()},
               {"o", true, sizes_at({H, N, HEAD_DIM}), nullptr}};
  s.size_bounds = {{4, 1, 65536, 32},         {1, 1, 65536, 64},        {8, 1, 65536, 64},
                   {65532, 16383, 1024, 32}, {65535, 65535, 512, 64}, {65528, 8191, 512, 64}};
  s.size_bounds_rule =
      "H * N * HEAD_DIM < 2^31, H_KV <= 65535 (the GPU grid's axis 1), N <= 2^16";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[N], b[0]), n[H_KV], 1};
  };
  s.reference = reference;
  // float32 through a softmax over up to 1029 keys: where o[h, i] is near zero (a sum of v's of
  // both signs, with v's outliers four times larger) the solution's error reached 1.4e-5 (case
  // 17, seed 55; case 18, seed 49: 1 element of 12800 and of 262912), past an atol of 1e-5; 3e-5
  // leaves it twice that margin, and every wrong kernel of the corpus misses by far more.
  s.rtol = 1e-4;
  s.atol = 3e-5;
  s.budgets = {keys_read_once_per_group(), each_program_reads_each_element_at_most({"k", "v"}, 1),
               each_element_read_at_most({"q"}, 1), each_element_written_at_most({"o"}, 1)};
}

}  // namespace tp::specs::grouped_query_attention
#endif  // TILEPUZZLES_SPEC
