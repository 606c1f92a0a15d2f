// Puzzles 9 and 10: the row-wise softmax of a long x[N0, T], in three passes or in two.
#include "checker/bindings/long_softmax_2loop.hpp"
#include "checker/bindings/long_softmax_3loop.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

namespace {

// The shared part of both softmax puzzles; `passes` is how often each x element may be read.
puzzle_spec softmax_spec(int passes) {
  puzzle_spec s;
  s.summary = "z = softmax(x) along each row of x[N0, T]; B0 rows per program, B1 columns per step";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the maximum or the sum (loaded as 0, or as poison with no
      // `other`).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      // Catches a running sum that is not rescaled when the maximum grows (the earlier elements
      // keep their full weight) and blocks normalized on their own (0 / 0 where every exp of a
      // block underflows).
      {{5, 131},
       "Every row is small noise (about -1 to 1) but for its last element, 200: the row's maximum "
       "arrives in its last block, far above the rest.",
       {{"x", peak_at_row_end(200.0, 1.0)}}},
      // Catches a running maximum that starts at 0, masked lanes loaded as 0 into the maximum, and
      // no maximum at all.
      {{5, 67},
       "Every row of x lies far below zero (about -1000), so exp(x) underflows to 0 for every "
       "element unless the row's maximum is subtracted first; T = 67 = 2^6 + 3 leaves a ragged "
       "block for every B1.",
       {{"x", values_around(-1000.0, 30.0)}}},
      {{7, 131},
       "Every row of x lies far above zero (about +1000), so exp(x) overflows to infinity for "
       "every element unless the row's maximum is subtracted first.",
       {{"x", values_around(1000.0, 30.0)}}},
      {{3, 65}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 34}, "A tail of 2 past a multiple of 32."},
      {{6, 131}, "A tail of 3 past a multiple of 32 and of 64."},
      // Catches a row mask left out.
      {{13, 200}, "13 rows: the last program of B0 = 4 has one real row."},
      {{4, 200}, "The classic puzzle set's 4 x 200."},
      // Catches a loop that stops after one block and a running sum reset inside the loop.
      {{2, 1000}, "Long rows of 1000, 16 to 32 blocks each."},
      {{3, 4099},
       "Rows of 4099 = 2^12 + 3, a prime: past loop bounds a kernel might hard-code (1024, "
       "4096), with a ragged last block for every B1."},
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  auto shape = sizes_at({0, 1});
  // Large magnitudes: a softmax that does not subtract the row maximum overflows exp.
  s.tensors = {{"x", false, shape, signed_fill(30.0)},
               {"z", true, shape, nullptr}};
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{(n[0] + b[0] - 1) / b[0], 1, 1};
  };
  s.reference = softmax_reference;
  s.rtol = 1e-4;
  s.atol = 1e-7;
  s.budgets = {each_element_read_at_most({"x"}, passes), each_element_written_at_most({"z"}, 1)};
  return s;
}

}  // namespace

const puzzle_spec& long_softmax_3loop() {
  static const puzzle_spec spec = [] {
    puzzle_spec s = softmax_spec(3);
    identify(s, bindings::long_softmax_3loop::id, 9,
             "Long softmax, three loops", "long_softmax_3loop");
    s.kernels = make_kernel_entries<bindings::long_softmax_3loop>();
    return s;
  }();
  return spec;
}

const puzzle_spec& long_softmax_2loop() {
  static const puzzle_spec spec = [] {
    puzzle_spec s = softmax_spec(2);
    identify(s, bindings::long_softmax_2loop::id, 10,
             "Long softmax, two loops (online)", "long_softmax_2loop");
    s.kernels = make_kernel_entries<bindings::long_softmax_2loop>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
