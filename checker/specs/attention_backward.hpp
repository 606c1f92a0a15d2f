// Puzzle 33: the backward pass of causal attention, dq, dk and dv of q, k, v [H, T, HEAD_DIM] from
// dout and the forward's saved lse and delta, in FlashAttention-2's order: one program per block of
// keys, dq's shares added into dq (zeroed by the host) with tl::atomic_add.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(AttentionBackward, int BQ, int BK, int D)

namespace tp::bindings {

struct attention_backward : puzzle_binding<attention_backward, puzzles::AttentionBackward,
                                           solutions::AttentionBackward> {
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                         tl::ptr<const float> dout, tl::ptr<const float> lse,
                         tl::ptr<const float> delta, tl::ptr<float> dq, tl::ptr<float> dk,
                         tl::ptr<float> dv, int H, int T, int HEAD_DIM);
  // Blocks of queries shorter than the blocks of keys, and longer: with BQ = 32 > BK = 16 the
  // first block of queries a program needs starts before its first key.
  using configs = block_list<blocks<16, 32, 32>, blocks<32, 16, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::attention_backward {

// The causal scores of one head, scale * q kᵀ with -inf where key j comes after query i.
matrix causal_scores(const matrix& q, const matrix& k) {
  matrix s = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  for (long long i = 0; i < s.rows(); ++i)
    for (long long j = i + 1; j < s.cols(); ++j) s(i, j) = -INFINITY;
  return s;
}

// What the forward pass and the preprocessing step save, in double, rounded to float as a float
// kernel stores them: lse[i] = log(sum over j <= i of exp(S[i, j])), and delta[i] = the sum over
// d of dout[i, d] * o[i, d], o = softmax(S) v.
void save_forward_statistics(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long H = n[0], T = n[1], D = n[2];
  Eigen::ArrayXd lse(H * T), delta(H * T);
  for (long long h = 0; h < H; ++h) {
    const long long first = h * T * D;
    const matrix s = causal_scores(as_matrix(t[0], T, D, first), as_matrix(t[1], T, D, first));
    const Eigen::ArrayXd row_max = s.rowwise().maxCoeff();
    const Eigen::ArrayXXd e = (s.array().colwise() - row_max).exp();
    const Eigen::ArrayXd row_sum = e.rowwise().sum();
    const matrix o = (e.colwise() / row_sum).matrix() * as_matrix(t[2], T, D, first);
    lse.segment(h * T, T) = row_max + row_sum.log();
    delta.segment(h * T, T) = (as_matrix(t[3], T, D, first).array() * o.array()).rowwise().sum();
  }
  set_from(t[4], lse);
  set_from(t[5], delta);
}

// In double, from the saved (float) lse and delta: P = exp(S - lse), dv = Pᵀ dout,
// dS = P * (dout vᵀ - delta), dk = scale * dSᵀ q, dq = scale * dS k.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long H = n[0], T = n[1], D = n[2];
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  const Eigen::ArrayXd lse = as_array(t[4]), delta = as_array(t[5]);
  for (long long h = 0; h < H; ++h) {
    const long long first = h * T * D;
    const matrix q = as_matrix(t[0], T, D, first), k = as_matrix(t[1], T, D, first);
    const matrix v = as_matrix(t[2], T, D, first), dout = as_matrix(t[3], T, D, first);
    const matrix p =
        (causal_scores(q, k).array().colwise() - lse.segment(h * T, T)).exp().matrix();
    const matrix ds =
        (p.array() * ((dout * v.transpose()).array().colwise() - delta.segment(h * T, T)))
            .matrix();
    set_from(t[6], matrix(scale * ds * k), first);
    set_from(t[7], matrix(scale * ds.transpose() * q), first);
    set_from(t[8], matrix(p.transpose() * dout), first);
  }
}

// The atomics on dq of a causal kernel: program (j, h) adds into the rows of the blocks of BQ
// queries from the one that holds its first key, j * BK, to T; the blocks before see none of its
// keys.
long long causal_dq_atomics(const std::vector<int>& n, const std::vector<int>& b) {
  const long long H = n[0], T = n[1], D = n[2];
  long long rows = 0;
  for (long long start_k = 0; start_k < T; start_k += b[1]) rows += T - start_k / b[0] * b[0];
  return H * rows * D;
}

budget dq_atomics_causal() {
  budget b;
  b.description = "at most one atomic on each element of dq per program whose keys its query "
                  "sees: a program adds nothing for the blocks of queries before its first key";
  b.check = [](const run_facts& f) -> std::optional<std::string> {
    const long long atomics = f.buffer("dq").counters.atomics;
    const long long allowed = causal_dq_atomics(f.sizes, f.blocks);
    if (atomics <= allowed) return std::nullopt;
    return "the atomics on dq had " + std::to_string(atomics) +
           " active lanes in all, at most " + std::to_string(allowed) +
           " allowed: one tile of BQ x HEAD_DIM per block of queries that sees any of a "
           "program's keys, from the block that holds its first key to T (a query before the "
           "program's first key sees none of them, its share of dq is 0).";
  };
  return b;
}

void describe(puzzle_spec& s) {
  s.summary = "dq, dk, dv of causal attention o = softmax(q kᵀ / sqrt(HEAD_DIM)) v for q, k, v "
              "of [H, T, HEAD_DIM] in float32, from dout and the saved lse and delta [H, T]; "
              "BK keys of one head per program, one loop over the blocks of BQ queries that see "
              "them, dq's shares added into dq (zeros at the start) with tl::atomic_add";
  s.size_names = {"H", "T", "HEAD_DIM"};
  s.block_names = {"BQ", "BK", "D"};
  // Every score far below zero: q integers 4 to 5, k integers -5 to -4, so that each score is
  // an exact integer, -1024 to -1600 at head_dim 64 (scaled: -128 to -200) and -512 to -800 at 32
  // (scaled: about -90 to -141), where exp of a score alone underflows float32 to 0 and only
  // exp(S - lse) stays in range. Integers, because float32 scores of that size computed from
  // arbitrary values are off by about 1e-4 (P as much, relatively), past the tolerance; these
  // are exact (at head_dim 32 the scale rounds them once, by 1e-5 at most).
  const std::vector<std::pair<std::string, case_fill>> far_scores = {
      {"q", integers_between(4, 5, 1)}, {"k", integers_between(4, 5, -1)}};
  constexpr const char* far_about =
      "Every score lies far below zero: q integers 4 to 5, k integers -5 to -4, so that the "
      "scaled scores are about -90 to -141 (head_dim 32) or -128 to -200 (head_dim 64), and so "
      "is each query's lse: exp of a score alone underflows to 0, exp(S - lse) does not.";
  s.cases = {
      // Catches masks left out (a key or query past T let into P), the causal mask off by one
      // (j < i: the first query sees no key), delta left out (the first query's dP = delta:
      // dS = P * dP is not 0 there) and lse or delta loaded past T.
      // (T = 2, not 1: at T = 1 dq is exactly 0, and a kernel that never adds into it would
      // pass it.)
      {{1, 2, 32},
       "Two queries and two keys: every lane of a block but the first two is masked off; the "
       "second query sees both keys."},
      // Catches P computed as exp(S) / exp(lse) (0 / 0), the causal mask left out, dk without
      // the scale, dq stored instead of added (two blocks of keys of 32 add into the same rows)
      // and programs that visit the blocks of queries before their first key (the budget).
      {{1, 35, 32}, far_about, far_scores},
      // Catches a head offset that ignores program_id(1), and the causal mask at the diagonal.
      {{2, 17, 32}, "Two heads, T = 17: the diagonal of the causal mask in every block."},
      // Catches the mistakes above with the second block set, and dq without the scale.
      {{1, 18, 64}, "T = 18, head_dim 64: the first case of the second block set."},
      // Catches a loop over queries that starts one block late, or at the program's first key
      // rounded up to a multiple of BQ (with BQ = 32 > BK = 16, program 1's keys 16 to 31 are
      // seen by queries 16 to 31, in block 0 of the queries).
      {{2, 35, 64}, "Two heads, T = 35 = 2^5 + 3: a ragged last block of keys and queries."},
      {{1, 35, 64}, std::string(far_about) + " Head_dim 64.", far_scores},
      // Catches dq stored instead of added (three blocks of keys of a head race on its rows), and
      // program_id(0) and (1) swapped (a grid of 3 x 2 programs, not square).
      {{2, 67, 32},
       "Two heads, T = 67 = 2^6 + 3: several blocks of keys add into each query's dq."},
      {{1, 67, 64}, "T = 67 at head_dim 64: several blocks of keys and of queries."},
      // Catches a loop over queries or keys, or a grid, hard-coded up to 1024.
      large_case({1, 1027, 32},
                 "The large tier: 1027 = 2^10 + 3 queries and keys, past 1024, head_dim 32."),
      large_case({1, 1027, 64},
                 "The large tier: 1027 = 2^10 + 3 queries and keys, past 1024, head_dim 64."),
      // Catches a head offset or a grid hard-coded up to 128 heads.
      large_case({131, 19, 32}, "The large tier: 131 heads of 19 queries and keys.")};
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[2] == b[2]; };
  s.case_fits_rule = "HEAD_DIM = D";
  const auto rows = sizes_at({0, 1, 2});
  const auto stats = sizes_at({0, 1});
  s.tensors = {{"q", false, rows, signed_fill()},
               {"k", false, rows, signed_fill()},
               {"v", false, rows, signed_fill()},
               {"dout", false, rows, signed_fill()},
               {"lse", false, stats, nullptr},
               {"delta", false, stats, nullptr},
               {"dq", true, rows, nullptr},
               {"dk", true, rows, nullptr},
               {"dv", true, rows, nullptr}};
  s.tensors[6].zeroed = true;
  s.derive_inputs = save_forward_statistics;
  s.size_bounds = {{1, 65536, 32}, {1, 65536, 64}, {65535, 512, 64}, {65535, 1024, 32}};
  s.size_bounds_rule = "H * T * HEAD_DIM < 2^31, H <= 65535 (the GPU grid's axis 1), T <= 2^16";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[1], b[1]), n[0], 1};
  };
  s.reference = reference;
  // float32 scores are off by a few units of 2^-24 of the sum of their products' magnitudes, and P
  // relatively as much; dq and dk then sum hundreds of terms of dS (T = 1027) whose row term delta
  // cancels most of them: the solution's worst errors are a few 1e-4 of the result's magnitude
  // in the large tier. The order of the atomics on dq adds far less (about 65 additions of one
  // rounding each).
  s.rtol = 1e-3;
  s.atol = 1e-3;
  s.budgets = {each_program_reads_each_element_at_most({"q", "k", "v", "dout", "lse", "delta"}, 1),
               each_element_written_at_most({"dk", "dv"}, 1), dq_atomics_causal()};
}

}  // namespace tp::specs::attention_backward
#endif  // TILEPUZZLES_SPEC
