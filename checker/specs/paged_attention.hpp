// Puzzle 31: attention for decoding over a paged key/value cache: one query per sequence and
// head, its keys and values in pages that a block table names, sequences of different lengths.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(PagedAttention, int B0, int B1)

namespace tp::bindings {

struct paged_attention
    : puzzle_binding<paged_attention, puzzles::PagedAttention, solutions::PagedAttention> {
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k_cache,
                         tl::ptr<const float> v_cache, tl::ptr<const int> block_table,
                         tl::ptr<const int> seq_lens, tl::ptr<float> out, int S, int H, int D,
                         int L, int PS, int P);
  using configs = block_list<blocks<16, 64>, blocks<64, 128>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <algorithm>
#include <cmath>

#include "checker/specs/common.hpp"

namespace tp::specs::paged_attention {

enum size { S, H, D, L, PS, P };

// Each sequence's length, uniform in [1, L * PS], the first sequence 1 long and the last filling
// all L of its pages.
void fill_lengths(std::vector<std::int32_t>& lengths, const std::vector<int>& n, rng& random) {
  const int longest = n[L] * n[PS];
  for (auto& len : lengths) len = 1 + static_cast<std::int32_t>(random.below(longest));
  lengths.back() = longest;
  if (lengths.size() >= 2) lengths.front() = 1;
}

// Every entry a different page, in random order (the pages of a sequence are scattered over
// the cache, as an allocator leaves them); derive_inputs then marks the unused entries.
void fill_table(std::vector<std::int32_t>& table, const std::vector<int>& n, rng& random) {
  std::vector<std::int32_t> pages(n[P]);
  for (int p = 0; p < n[P]; ++p) pages[p] = p;
  for (int p = n[P] - 1; p > 0; --p) std::swap(pages[p], pages[random.below(p + 1)]);
  std::copy(pages.begin(), pages.begin() + static_cast<long long>(table.size()), table.begin());
}

// Entries past a sequence's last page are -1, as a serving engine leaves a table's free slots:
// a kernel that reads one and follows it reads outside the cache.
void mark_unused_entries(const std::vector<int>& n, std::vector<tensor>& t) {
  for (int s = 0; s < n[S]; ++s) {
    const int used = (t[4].ints[s] + n[PS] - 1) / n[PS];
    for (int e = used; e < n[L]; ++e) t[3].ints[static_cast<long long>(s) * n[L] + e] = -1;
  }
}

// out[s, h, :] = softmax_t(q[s, h, :] . k[s, t, h, :] / sqrt(D)) v[s, t, h, :] over the
// positions t < seq_lens[s], position t at page block_table[s, t / PS], slot t % PS; in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long heads = n[H], dim = n[D], ps = n[PS];
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  auto cache_row = [&](int s, int pos, int h) {
    const long long page = t[3].ints[static_cast<long long>(s) * n[L] + pos / ps];
    return ((page * ps + pos % ps) * heads + h) * dim;
  };
  for (int s = 0; s < n[S]; ++s)
    for (int h = 0; h < n[H]; ++h) {
      const int len = t[4].ints[s];
      const float* query = t[0].values.data() + (static_cast<long long>(s) * heads + h) * dim;
      std::vector<double> scores(len);
      for (int pos = 0; pos < len; ++pos) {
        const float* key = t[1].values.data() + cache_row(s, pos, h);
        double dot = 0;
        for (long long d = 0; d < dim; ++d) dot += static_cast<double>(query[d]) * key[d];
        scores[pos] = dot * scale;
      }
      const double top = *std::max_element(scores.begin(), scores.end());
      double total = 0;
      for (double& x : scores) total += (x = std::exp(x - top));
      float* out = t[5].values.data() + (static_cast<long long>(s) * heads + h) * dim;
      for (long long d = 0; d < dim; ++d) {
        double acc = 0;
        for (int pos = 0; pos < len; ++pos) acc += scores[pos] * t[2].values[cache_row(s, pos, h) + d];
        out[d] = static_cast<float>(acc / total);
      }
    }
}

// A case of `sequences` sequences, each up to `pages_each` pages of `page_size` positions, in a
// cache with `spare` pages more than the table can name.
std::vector<int> sizes_of(int sequences, int heads, int dim, int pages_each, int page_size,
                          int spare = 3) {
  return {sequences, heads, dim, pages_each, page_size, sequences * pages_each + spare};
}

void describe(puzzle_spec& s) {
  s.summary = "out[s, h] = softmax(q[s, h] . k / sqrt(D)) v over the seq_lens[s] positions of "
              "sequence s, position t in page block_table[s, t / PS] at slot t % PS of the "
              "caches [P, PS, H, D]; one program per (sequence, head), B0 positions per step, "
              "B1 >= D lanes of the head";
  s.size_names = {"S", "H", "D", "L", "PS", "P"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked positions let into the softmax, and a length read as a page count.
      {sizes_of(1, 1, 4, 1, 16), "One sequence of one page of 16 positions, its length 16, one "
                                 "head of 4."},
      // Catches the cache indexed by position instead of through the block table, pages taken as
      // B0 positions long, and the heads' offsets swapped with the positions'.
      {sizes_of(3, 2, 8, 5, 16),
       "Three sequences of up to 5 pages of 16 positions, the first 1 long and the last 80; their "
       "pages scattered over the cache."},
      // Catches a page size taken as the step: pages of 5 positions cut every block of B0.
      {sizes_of(4, 3, 16, 9, 5), "Pages of 5 positions: every step of B0 positions spans pages."},
      // Catches entries of the block table past a sequence's last page followed (they are -1),
      // and a length rounded up to whole pages.
      {sizes_of(6, 2, 32, 7, 10),
       "Sequences that end inside a page, the table's entries after their last page -1."},
      // Catches a padding score that is not -inf (-1e4, 0): every real score is -12800, exactly
      // (so the weights are equal however a kernel scales its scores, and out is the mean of v).
      {sizes_of(3, 2, 64, 4, 16),
       "Every query element is +40 and every key element -40: every score is -12800, below every "
       "padding but -inf, and out is the mean of the sequence's values.",
       {{"q", integers_between(40, 40, 1)}, {"k_cache", integers_between(40, 40, -1)}}},
      // Catches a running sum not rescaled when the maximum grows: scores spread over tens.
      {sizes_of(3, 4, 48, 6, 16),
       "Queries and keys spread about 3: scores spread over tens, so that the maximum moves from "
       "step to step.",
       {{"q", values_around(0.0, 3.0)}, {"k_cache", values_around(0.0, 3.0)}}},
      // Catches the head dimension taken as a power of two: D = 100 leaves 28 lanes of B1 = 128
      // unused (B1 = 64 cannot hold it: that case runs with B1 = 128 only).
      {sizes_of(2, 2, 100, 3, 16), "D = 100: a head that fills no power of two."},
      // Catch loops or arrays hard-coded to 1024 keys, and a block table walked to L.
      large_case(sizes_of(2, 2, 64, 257, 16),
                 "The large tier: sequences of up to 4112 positions (the last 4112, past every "
                 "bound of 1024 or 4096 keys a kernel might hard-code)."),
      large_case(sizes_of(129, 4, 32, 3, 16),
                 "The large tier: 129 sequences of 4 heads, a grid of 129 x 4 programs."),
  };
  s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[D] <= b[1]; };
  s.case_fits_rule = "D <= B1 (a whole head in one tile)";
  tensor_spec table{"block_table", false, sizes_at({S, L}), nullptr, dtype::int32};
  table.fill_ints_for_sizes = fill_table;
  tensor_spec lengths{"seq_lens", false, sizes_at({S}), nullptr, dtype::int32};
  lengths.fill_ints_for_sizes = fill_lengths;
  tensor_spec k_cache{"k_cache", false, sizes_at({P, PS, H, D}), signed_fill(1.0)};
  k_cache.read_in_part = true;  // pages past a sequence's length, and spare pages, are no one's
  tensor_spec v_cache = k_cache;
  v_cache.name = "v_cache";
  s.tensors = {{"q", false, sizes_at({S, H, D}), signed_fill(1.0)},
               k_cache,
               v_cache,
               table,
               lengths,
               {"out", true, sizes_at({S, H, D}), nullptr}};
  s.derive_inputs = mark_unused_entries;
  s.size_bounds = {{2047, 8, 128, 64, 16, 131071}, {8, 8, 128, 4096, 16, 32768},
                   {2047, 16, 64, 64, 16, 131071}};
  s.size_bounds_rule = "P * PS * H * D < 2^31, L * PS <= 65536, D <= B1";
  s.grid = [](const std::vector<int>& n, const std::vector<int>&) {
    return std::array<int, 3>{n[S], n[H], 1};
  };
  s.reference = reference;
  s.rtol = 1e-4;
  s.atol = 1e-5;
  s.budgets = {each_element_read_at_most({"q", "k_cache", "v_cache"}, 1),
               each_program_reads_each_element_at_most({"seq_lens"}, 1),
               each_element_written_at_most({"out"}, 1)};
}

}  // namespace tp::specs::paged_attention
#endif  // TILEPUZZLES_SPEC
