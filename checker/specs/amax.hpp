// Puzzle 32: amax, the largest magnitude of each row: amax[r] = max over c of |x[r, c]| for
// x[N0, N1] (NaN where the row holds one, as torch.amax(x.abs(), dim=1)). amax is a float32
// output that the host zeroes before the launch; the programs of a row meet in it with
// tl::atomic_max.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Amax, int B0, int B1)

namespace tp::bindings {

struct amax : puzzle_binding<amax, puzzles::Amax, solutions::Amax> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> amax, int N0, int N1);
  using configs = block_list<blocks<1, 1024>, blocks<16, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include <cmath>
#include <limits>

#include "checker/specs/common.hpp"

namespace tp::specs::amax {

// The usual signed fill, with a NaN as the last element of every odd row: in the row's ragged
// last block of columns, where a program's max must carry it to the atomic.
void nan_ends_odd_rows(std::vector<float>& x, const std::vector<long long>& shape, rng& random) {
  fill_signed(x, random, 1.0);
  const long long rows = shape[0], cols = shape[1];
  for (long long r = 1; r < rows; r += 2)
    x[static_cast<std::size_t>(r * cols + cols - 1)] = std::numeric_limits<float>::quiet_NaN();
}

// amax[r] = max over c of |x[r, c]|; NaN if any of them is NaN.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const long long rows = n[0], cols = n[1];
  auto& out = t[1].values;
  out.assign(static_cast<std::size_t>(rows), 0.0f);
  for (long long r = 0; r < rows; ++r) {
    float m = 0.0f;
    for (long long c = 0; c < cols; ++c) {
      const float v = t[0].values[static_cast<std::size_t>(r * cols + c)];
      if (std::isnan(v)) {
        m = v;
        break;
      }
      m = std::max(m, std::abs(v));
    }
    out[static_cast<std::size_t>(r)] = m;
  }
}

void describe(puzzle_spec& s) {
  s.summary = "amax[r] = the largest |x[r, c]| over the N1 columns of each row r of x[N0, N1] "
              "(NaN where the row holds one). amax starts as zeros; a B0 x B1 tile of x per "
              "program, the programs of a row meeting in amax with tl::atomic_max";
  s.size_names = {"N0", "N1"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      {{1, 1}, "A single element."},
      // Catches a result stored rather than kept by an atomic (the row's last program wins), and
      // partial maxima added with atomic_add: one row split over 16 programs of 64 columns.
      {{1, 1000}, "One row of 1000: the amax of the whole tensor, from 1 or 16 programs."},
      // Catches a mask missing or off by one on either axis, and a padding that is not the
      // identity of a max of magnitudes (|-inf| is inf; any positive value wins small rows).
      {{17, 1025}, "A tail of 1 past 16 rows and past 1024 columns."},
      {{18, 66}, "A tail of 2 past 16 rows and past 64 columns."},
      {{35, 1027}, "A tail of 3 past 32 rows and past 1024 columns."},
      // Catches the largest value taken where the largest magnitude belongs: every row's
      // maximum is below amax's zeros.
      {{6, 300},
       "Every value negative, -3e4 to -1e4: a row's largest magnitude is its smallest value.",
       {{"x", magnitudes_between(1e4, 3e4, -1)}}},
      // Catches a max that drops a NaN (a comparison's `where` keeps the other side).
      {{5, 130},
       "Rows 1 and 3 end in a NaN (in the ragged last block of columns): their amax is NaN, as "
       "torch.amax gives.",
       {{"x", nan_ends_odd_rows}}},
      // Catches program_id(0) and program_id(1) swapped.
      {{70, 40}, "A tile grid taller than wide."},
      // Catches a loop or a grid hard-coded up to 65536 columns.
      large_case({3, 131075},
                 "The large tier: rows of 131075 = 2^17 + 3 columns, past every row length a "
                 "kernel might hard-code below them (8192, 16384, 65536)."),
      // Catches a grid or a row bound hard-coded up to 65536 rows.
      large_case({65539, 3}, "The large tier: 65539 = 2^16 + 3 rows of 3."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1}), signed_fill()},
               {"amax", true, sizes_at({0}), nullptr}};
  s.tensors[1].zeroed = true;
  s.size_bounds = {{2147483647, 1}, {511, 4194240}, {46340, 46340}};
  s.size_bounds_rule = "N0 * N1 < 2^31, N1 <= 65535 * 64 (the GPU grid's axis 1)";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), cdiv(n[1], b[1]), 1};
  };
  s.reference = reference;
  // A max picks one of its operands: exact, in any order the atomics run.
  s.rtol = 0;
  s.atol = 0;
  s.budgets = {each_element_read_at_most({"x"}, 1),
               atomics_per_program_at_most(
                   "amax", "B0",
                   [](const std::vector<int>&, const std::vector<int>& b) { return 1LL * b[0]; },
                   "a program reduces its tile first, then keeps each row's maximum with one "
                   "atomic, not one atomic per element")};
}

}  // namespace tp::specs::amax
#endif  // TILEPUZZLES_SPEC
