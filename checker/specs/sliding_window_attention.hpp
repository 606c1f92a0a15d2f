// Puzzle 34: causal attention over a sliding window of the W most recent keys, q, k, v of
// [N, HEAD_DIM] in float32; a program visits only the blocks of keys its queries' windows reach.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(SlidingWindowAttention, int B0, int B1, int D)

namespace tp::bindings {

struct sliding_window_attention
    : puzzle_binding<sliding_window_attention, puzzles::SlidingWindowAttention,
                     solutions::SlidingWindowAttention> {
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                         tl::ptr<float> o, int N, int HEAD_DIM, int W);
  // Blocks of queries shorter than the blocks of keys, and longer: with B0 = 32 > B1 = 16 a
  // program visits at least two blocks of keys, and some of its queries see none of the first.
  using configs = block_list<blocks<16, 32, 32>, blocks<32, 16, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::sliding_window_attention {

enum size { N, HEAD_DIM, W };

// o[i] = softmax_j(q[i] . k[j] / sqrt(HEAD_DIM)) v[j] over the keys i - W < j <= i, in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long rows = n[N], dim = n[HEAD_DIM], window = n[W];
  const matrix q = as_matrix(t[0], rows, dim), k = as_matrix(t[1], rows, dim);
  const matrix v = as_matrix(t[2], rows, dim);
  const matrix scores = q * k.transpose() / std::sqrt(static_cast<double>(dim));
  matrix o(rows, dim);
  for (long long i = 0; i < rows; ++i) {
    const long long first = std::max(0LL, i - window + 1), count = i - first + 1;
    const Eigen::RowVectorXd s = scores.row(i).segment(first, count);
    const Eigen::RowVectorXd e = (s.array() - s.maxCoeff()).exp().matrix();
    o.row(i) = e * v.middleRows(first, count) / e.sum();
  }
  set_from(t[3], o);
}

// The most times a kernel that visits only its window's blocks loads one key. Program b (queries
// b*B0 .. b*B0 + B0 - 1) visits the block of keys kb when kb*B1 <= b*B0 + B0 - 1 (a query at or
// after the block's first key) and b*B0 - W + 1 <= kb*B1 + B1 - 1 (the first query's window
// reaching the block's last key): b*B0 lies in a run of W + B0 + B1 - 2 integers, which holds at
// most cdiv(W + B0 + B1 - 2, B0) multiples of B0.
long long window_reads(const std::vector<int>& n, const std::vector<int>& b) {
  const long long span = 1LL * n[W] + b[0] + b[1] - 2;
  return (span + b[0] - 1) / b[0];
}

budget keys_read_within_windows() {
  budget b;
  b.description =
      "each element of k and v is loaded at most cdiv(W + B0 + B1 - 2, B0) times over the whole "
      "launch: once by each program whose queries' windows reach its block of keys (a program "
      "visits the blocks of keys from the one that holds its first query's oldest key, "
      "max(0, first query - W + 1), to the one that holds its last query, none before or after)";
  b.check = [](const run_facts& f) -> std::optional<std::string> {
    const long long allowed = window_reads(f.sizes, f.blocks);
    for (const char* name : {"k", "v"}) {
      const auto& buf = f.buffer(name);
      if (buf.counters.max_element_reads <= allowed) continue;
      for (long long i = 0; i < buf.count(); ++i) {
        if (buf.shadow[i].reads <= allowed) continue;
        return std::string(name) + buf.coords_of(i) + " was loaded " +
               std::to_string(buf.shadow[i].reads) + " times (at most cdiv(W + B0 + B1 - 2, B0) = " +
               std::to_string(allowed) + " allowed: the programs whose queries' windows reach its "
               "block of keys); " + name + " was loaded " + std::to_string(buf.counters.loads) +
               " times in all for its " + std::to_string(buf.count()) +
               " elements. A program's loop over keys starts at the block that holds key "
               "max(0, its first query - W + 1), not at 0, and ends with the block that holds its "
               "last query, not at N.";
      }
    }
    return std::nullopt;
  };
  return b;
}

void describe(puzzle_spec& s) {
  s.summary = "o[i] = softmax_j(q[i] . k[j] / sqrt(HEAD_DIM)) v[j] over the W most recent keys, "
              "i - W < j <= i, for q, k, v of [N, HEAD_DIM] in float32; B0 queries per program, "
              "one loop over the blocks of B1 keys that their windows reach";
  s.size_names = {"N", "HEAD_DIM", "W"};
  s.block_names = {"B0", "B1", "D"};
  // Every score of a query far from zero: k all negative (integers 4 to 5), each query's q of
  // one sign (integers 4 to 5). Integers, because float32 scores of 100 to 200 computed from
  // arbitrary values are off by about 1e-4 (each weight relatively as much), past the tolerance;
  // these are exact (at head_dim 32 the scale rounds them once, by 1e-5 at most).
  const std::vector<std::pair<std::string, case_fill>> far_scores = {
      {"q", integers_with_row_sign(4, 5)}, {"k", integers_between(4, 5, -1)}};
  constexpr const char* far_about =
      "Every score of a query lies far from zero: k is all negative (integers -5 to -4) and each "
      "query's q integers 4 to 5 of one sign, so a query with q > 0 has every score below -90 "
      "(exp of each underflows to 0) and one with q < 0 every score above +90 (exp overflows).";
  // Every score far below -1e4 and every key tied: q integers 40 to 60, k all -60; exact in
  // float32 (sums below 2^24), each query's scores equal, so o[i] is the mean of its window's v.
  const std::vector<std::pair<std::string, case_fill>> thousands_below = {
      {"q", integers_between(40, 60, 1)}, {"k", integers_between(60, 60, -1)}};
  constexpr const char* thousands_about =
      "Every score lies far below -1e4 (q integers 40 to 60, every element of k -60: about -1.4e4 "
      "to -2.9e4 after the 1/sqrt(HEAD_DIM) scale, exact) and a query's scores all tie, so o[i] "
      "is the mean of v over its window: a key masked with a finite padding such as -1e4 instead "
      "of -inf outscores every real one.";
  // Scores spread over tens: the running maximum moves from block to block.
  const std::vector<std::pair<std::string, case_fill>> spread_scores = {
      {"q", values_around(0.0, 2.0)}, {"k", values_around(0.0, 2.0)}};
  s.cases = {
      // Catches masked keys let into the softmax (a key loaded as 0 scores 0, not -inf).
      {{1, 32, 1}, "One query and one key: every lane of a block but the first is masked off."},
      // Catches the window's bounds off by one (i - W <= j: a query sees W + 1 keys) and keys
      // past N let in.
      {{3, 64, 2},
       "Three queries and keys, a window of 2: the first query sees key 0, the others their own "
       "key and the one before."},
      // Catches a window's lower bound left unmasked inside the first block visited (B1 = 32
      // holds keys older than W = 8 for most queries), and a ragged last block.
      {{35, 32, 8}, "N = 35 = 2^5 + 3, a window of 8 keys, shorter than every block."},
      // Catches a loop that starts at the block of the first query's key itself (start_m / B1)
      // rather than of its oldest key, and a window rounded to a multiple of B1.
      {{67, 64, 20}, "N = 67 = 2^6 + 3, a window of 20 keys, not a multiple of B1."},
      // Catches exp(-inf - (-inf)): with W = 1 and B0 = 32 > B1 = 16, queries 16 to 31 see no
      // key of the first block their program visits, and their running maximum is still -inf
      // after it (NaN, unless the kernel subtracts a finite number for them).
      {{50, 32, 1}, "A window of 1: each query sees only its own key, and o = v."},
      {{50, 64, 1},
       "A window of 1 at head_dim 64, blocks of 32 queries and 16 keys: half the queries of a "
       "program see no key of the first block it visits (their running maximum is still -inf "
       "after it)."},
      // Catches a window clamped to N, or keys past N let in when the window reaches past them.
      {{67, 32, 100}, "A window of 100 > N = 67: every query sees every key up to itself, as in "
                      "causal attention."},
      {{35, 64, 1000}, "A window of 1000 > N = 35 at head_dim 64: causal attention."},
      {{66, 32, 33}, "N = 66, a tail of 2; a window of 33 = 2^5 + 1 keys."},
      // Catches a running maximum that starts at 0 (0 / 0) and none at all (inf / inf).
      {{35, 32, 12}, far_about, far_scores},
      {{35, 64, 12}, std::string(far_about) + " Head_dim 64.", far_scores},
      // Catches a padding or initial maximum that is not -inf (such as -1e4): masked keys win.
      {{35, 32, 10}, thousands_about, thousands_below},
      {{35, 64, 10}, std::string(thousands_about) + " Head_dim 64.", thousands_below},
      // Catches l_i or acc not rescaled when the maximum grows.
      {{100, 64, 45},
       "q and k spread about 2: scores spread over tens, so that the running maximum moves from "
       "block to block; a window of 45 over three blocks of keys.",
       spread_scores},
      // Catches a loop over keys that starts at block 0 or runs to N (the budget: ten windows of
      // 20 keys, the first keys and the last loaded by every program).
      {{200, 32, 20}, "200 queries and keys, a window of 20: the sequence is ten windows long."},
      {{200, 64, 20},
       "200 queries and keys at head_dim 64, a window of 20: the sequence is ten windows long."},
      // Catches a loop, grid or window hard-coded up to 2048 keys or 256 of window.
      large_case({2051, 32, 260},
                 "The large tier: N = 2051 = 2^11 + 3 queries and keys, a window of 260 keys, "
                 "past 256."),
      // Catches a window hard-coded up to 1024 keys.
      large_case({1543, 64, 1029},
                 "The large tier: N = 1543 queries and keys at head_dim 64, a window of 1029 = "
                 "2^10 + 5 keys, past 1024."),
  };
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) {
    return n[HEAD_DIM] == b[2];
  };
  s.case_fits_rule = "HEAD_DIM = D";
  const auto rows = sizes_at({N, HEAD_DIM});
  s.tensors = {{"q", false, rows, signed_fill()},
               {"k", false, rows, signed_fill()},
               {"v", false, rows, signed_fill()},
               {"o", true, rows, nullptr}};
  s.size_bounds = {{65536, 32, 65536}, {65536, 64, 65536}, {65536, 64, 1},
                   {65536, 32, 2147483647}};
  s.size_bounds_rule = "N * HEAD_DIM < 2^31, N <= 2^16, 1 <= W < 2^31";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[N], b[0]), 1, 1};
  };
  s.reference = reference;
  s.rtol = 1e-4;
  s.atol = 1e-5;
  s.budgets = {keys_read_within_windows(), each_program_reads_each_element_at_most({"k", "v"}, 1),
               each_element_read_at_most({"q"}, 1), each_element_written_at_most({"o"}, 1)};
}

}  // namespace tp::specs::sliding_window_attention
#endif  // TILEPUZZLES_SPEC
