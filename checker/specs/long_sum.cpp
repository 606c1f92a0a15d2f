// Puzzle 8: the sum of each row of a long x[N0, T], in one loop over the row.
#include "checker/bindings/long_sum.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

const puzzle_spec& long_sum() {
  static const puzzle_spec spec = [] {
    puzzle_spec s;
    s.id = bindings::long_sum::id;
    s.number = 8;
    s.title = "Long sum";
    s.summary = "z[i] = sum_j x[i, j] for x[N0, T]; B0 rows per program, a loop over T in steps "
                "of B1";
    s.stub_file = "puzzles/long_sum.hpp";
    s.solution_file = "solutions/long_sum.hpp";
    s.doc_file = "docs/puzzles/long-sum.md";
    s.size_names = {"N0", "T"};
    s.block_names = {"B0", "B1"};
    // A single element; T past a multiple of B1 (32 or 64) by 1, 2 and 3; the classic set's
    // 4 x 200; N0 not a multiple of B0 = 4; a 1000-column row.
    s.cases = {{1, 1}, {3, 65}, {5, 34}, {7, 131}, {4, 200}, {2, 1000}};
    s.tensors = {
        {"x", false, [](const std::vector<int>& n) { return std::vector<long long>{n[0], n[1]}; },
         [](auto& v, rng& r) { fill_signed(v, r); }},
        {"z", true, [](const std::vector<int>& n) { return std::vector<long long>{n[0]}; },
         nullptr}};
    s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
      return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
    };
    s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
      const matrix x = as_matrix(t[0], n[0], n[1]);
      set_from(t[1], Eigen::ArrayXd(x.rowwise().sum().array()));
    };
    // A float sum of T terms of size ~1 is off by up to ~T * 6e-8 * |term|: 1e-4 absolute
    // covers T = 1000 in any order of summation.
    s.rtol = 1e-5;
    s.atol = 1e-4;
    s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
    s.kernels = make_kernel_entries<bindings::long_sum>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
