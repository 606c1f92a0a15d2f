// Puzzle 23: the embedding gather, out[r, :] = table[ids[r], :], ids[N0] an int32 input, table
// [V, D].
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Embedding, int B0, int B1)

namespace tp::bindings {

struct embedding : puzzle_binding<embedding, puzzles::Embedding, solutions::Embedding> {
  using signature = void(tl::ptr<const int> ids, tl::ptr<const float> table, tl::ptr<float> out,
                         int N0, int V, int D);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::embedding {

// Token ids uniform over the V rows of the table, with the first id 0 and the last V - 1 (the
// table's first and last rows gathered in every case of two ids or more; a single id is V - 1).
void fill_ids(std::vector<std::int32_t>& ids, const std::vector<int>& sizes, rng& random) {
  const int V = sizes[1];
  for (auto& id : ids) id = static_cast<std::int32_t>(random.below(V));
  ids.back() = V - 1;
  if (ids.size() >= 2) ids.front() = 0;
}

// out[r, :] = table[ids[r], :].
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const matrix table = as_matrix(t[1], n[1], n[2]);
  matrix out(n[0], n[2]);
  for (int r = 0; r < n[0]; ++r) out.row(r) = table.row(t[0].ints[r]);
  set_from(t[2], out);
}

void describe(puzzle_spec& s) {
  s.summary = "out[r, :] = table[ids[r], :] for the N0 ids of ids[N0] into table[V, D], each id "
              "in [0, V); B0 rows per program, B1 columns per step";
  s.size_names = {"N0", "V", "D"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1, 1}, "A single id, 0, into a table of one row of one element."},
      // Catches the table indexed by the row's number instead of its id, and ids read off by
      // one (1-based): the first id is 0 and the last V - 1.
      {{5, 7, 67},
       "5 ids into 7 rows, the first 0 and the last 6 = V - 1; D = 67 = 2^6 + 3 leaves a ragged "
       "block for every B1."},
      // Catches the table's rows taken as N0 long or V long instead of D: more ids than rows,
      // and rows longer than the vocabulary.
      {{16, 4, 33}, "16 ids into a table of 4 rows: every row gathered several times."},
      // Catch a ragged last block of columns let through its mask.
      {{3, 1000, 65}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 3, 34}, "A tail of 2 past a multiple of 32."},
      {{6, 50, 131}, "A tail of 3 past a multiple of 32 and of 64."},
      // Catches a row mask left out of the load of the ids or of the gather.
      {{13, 100, 200}, "13 ids: the last program of B0 = 4 has one real row."},
      // Catches values changed on the way (scaled by sqrt(D) as some models do, or rounded): a
      // table of integers of magnitude 1e6 to 1e7, exact in float.
      {{7, 20, 131},
       "Every element of the table is an integer of magnitude 1e6 to 1e7, of either sign.",
       {{"table", integers_between(1000000, 10000000, 0)}}},
      // Catch loops that stop after one block, and ids reloaded in every block of columns.
      {{2, 9, 1000}, "Long rows of 1000, 16 to 32 blocks each."},
      // Catches a loop bound or an array hard-coded up to 65536.
      large_case({2, 3, 131075},
                 "The large tier: rows of 131075 = 2^17 + 3, past every loop bound or array a "
                 "kernel might hard-code below them (8192, 16384, 65536)."),
      // Catches an id bound hard-coded up to 65536 (a vocabulary larger than an int16).
      large_case({37, 131075, 3},
                 "The large tier: a vocabulary of 131075 = 2^17 + 3 rows, the last among the "
                 "ids."),
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 10, 5},
                 "The large tier: 4099 = 2^12 + 3 ids, a ragged last block of rows for B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {2, 1}};
  tensor_spec ids{"ids", false, sizes_at({0}), nullptr, dtype::int32};
  ids.fill_ints_for_sizes = fill_ids;
  s.tensors = {ids,
               {"table", false, sizes_at({1, 2}), signed_fill(1.0)},
               {"out", true, sizes_at({0, 2}), nullptr}};
  s.size_bounds = {{2147483647, 1, 1}, {1, 2147483647, 1}, {2047, 2047, 1048576},
                   {46340, 46340, 46340}};
  s.size_bounds_rule = "N0 * D < 2^31, V * D < 2^31, D <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // A gather copies: every element exact.
  s.rtol = 0;
  s.atol = 0;
  s.budgets = {each_element_read_at_most({"ids"}, 1),
               loads_in_all_at_most(
                   "table", "N0 * D", [](const std::vector<int>& n) { return 1LL * n[0] * n[2]; },
                   "one row of D features for each id"),
               each_element_written_at_most({"out"}, 1)};
}

}  // namespace tp::specs::embedding
#endif  // TILEPUZZLES_SPEC
