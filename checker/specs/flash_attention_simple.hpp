// Puzzle 12: one-dimensional attention with a single pass over k and v.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(FlashAttentionSimple, int B0, int B1)

namespace tp::bindings {

struct flash_attention_simple
    : puzzle_binding<flash_attention_simple, puzzles::FlashAttentionSimple, solutions::FlashAttentionSimple> {
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                         tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 16>, blocks<8, 32>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>

#include "checker/specs/common.hpp"

namespace tp::specs::flash_attention_simple {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = sum_j softmax_j(q[i] * k[j]) * v[j]; B0 queries per program, one loop "
              "over T in steps of B1";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked keys let into the softmax (a key loaded as 0 scores 0, not -inf).
      {{1, 1},
       "One query and one key: every lane of a block of keys but the first is masked off."},
      // Catches a running sum or output that is not rescaled when the maximum grows (the earlier
      // keys keep their full weight).
      {{11, 67},
       "q is positive (1 to 2) and k small noise (about -1 to 1) but for its last key, 100: "
       "every query's maximum score arrives in the last block of keys, far above the rest.",
       {{"q", magnitudes_between(1.0, 2.0, 1)}, {"k", peak_at_row_end(100.0, 1.0)}}},
      // Catches a running maximum that starts at 0 (0 / 0) and no maximum at all (inf / inf); N0
      // = 13 and T = 67 = 2^6 + 3 leave ragged blocks for every block size.
      {{13, 67},
       "Every score q[i] * k[j] of a query lies far from zero: k is all negative (-10.5 to "
       "-11.5) and q has magnitudes 10 to 11 of either sign, so a query with q > 0 has every "
       "score below -105 (exp of each underflows to 0) and one with q < 0 every score above "
       "+105 (exp overflows).",
       {{"q", magnitudes_between(10.0, 11.0, 0)}, {"k", magnitudes_between(10.5, 11.5, -1)}}},
      // Catches a running maximum that starts at a finite floor such as -1e4 (every exp
      // underflows: 0 / 0) and masked keys scored -1e4 instead of -inf (they win the softmax):
      // the initial maximum and the padding must be -inf.
      {{13, 67},
       "Scores spread over thousands, far below zero for a query with q > 0 (q of magnitudes "
       "150 to 170, integers; every key -180 but the last, -170: scores of -25500 to -30600, "
       "exact in float32, every key tied but the last, which outscores them by at least 1500) "
       "and far above for one with q < 0.",
       {{"q", integers_between(150, 170, 0)},
        {"k", [](std::vector<float>& k, const std::vector<long long>&, rng&) {
           std::fill(k.begin(), k.end(), -180.0f);
           k.back() = -170.0f;
         }}}},
      {{3, 17}, "A tail of 1 key past a multiple of 16."},
      {{5, 34}, "A tail of 2 keys past a multiple of 16 and of 32."},
      {{9, 67}, "A tail of 3 keys; N0 = 9 for B0 = 8."},
      // Catches offsets that ignore program_id.
      {{40, 200}, "40 queries and 200 keys: several programs of queries."},
      {{200, 200}, "The classic puzzle set's 200 queries and 200 keys."},
      {{9, 4099},
       "4099 = 2^12 + 3 keys, a prime: past loop bounds a kernel might hard-code (1024, 4096)."},
      // Catches a loop bound or an array of keys hard-coded up to 65536.
      large_case({3, 65539},
                 "The large tier: 65539 = 2^16 + 3 keys: past every loop bound or array of keys "
                 "a kernel might hard-code (8192, 16384, 65536). q is 0, so every key weighs the "
                 "same, and v small integers: z is the mean of v, its sum exact in float32 in "
                 "any order.",
                 {{"q", magnitudes_between(0.0, 0.0, 1)}, {"v", integers_between(0, 4, 0)}}),
      // Catches a grid or a query bound hard-coded up to 4096.
      large_case({4099, 5}, "The large tier: 4099 = 2^12 + 3 queries."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  auto n0 = sizes_at({0});
  auto t = sizes_at({1});
  s.tensors = {{"q", false, n0, signed_fill(3.0)},
               {"k", false, t, signed_fill(3.0)},
               {"v", false, t, signed_fill()},
               {"z", true, n0, nullptr}};
  s.size_bounds = {{2147483647, 1}, {2147483647, 1048576}};
  s.size_bounds_rule = "N0 < 2^31, T <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    const Eigen::ArrayXd q = as_array(t[0]), k = as_array(t[1]), v = as_array(t[2]);
    const matrix scores = q.matrix() * k.matrix().transpose();
    const Eigen::VectorXd row_max = scores.rowwise().maxCoeff();
    const matrix e = (scores.colwise() - row_max).array().exp().matrix();
    set_from(t[3], Eigen::ArrayXd((e * v.matrix()).array() / e.rowwise().sum().array()));
  };
  s.rtol = 1e-4;
  s.atol = 1e-5;
  s.budgets = {each_program_reads_each_element_at_most({"k", "v"}, 1),
               each_element_read_at_most({"q"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::flash_attention_simple
#endif  // TILEPUZZLES_SPEC
