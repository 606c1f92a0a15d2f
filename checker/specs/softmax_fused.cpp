// Puzzle 11: the row-wise softmax with each row in one tile: one read, one write.
#include "checker/bindings/softmax_fused.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

const puzzle_spec& softmax_fused() {
  static const puzzle_spec spec = [] {
    puzzle_spec s;
    s.id = bindings::softmax_fused::id;
    s.number = 11;
    s.title = "Softmax, fused";
    s.summary = "z = softmax(x) along each row of x[N0, T], T <= B1; B0 rows per program, each "
                "row in one tile";
    s.stub_file = "puzzles/softmax_fused.hpp";
    s.solution_file = "solutions/softmax_fused.hpp";
    s.doc_file = "docs/puzzles/softmax-fused.md";
    s.size_names = {"N0", "T"};
    s.block_names = {"B0", "B1"};
    // Rows of 1, 2 and 3 elements (all but a few lanes masked), rows past 128 and 64 by 1 and 2,
    // the classic set's 4 x 200, rows longer than 256 that fit only B1 = 512, and N0 not a
    // multiple of B0 = 4.
    s.cases = {{1, 1}, {3, 2}, {5, 3}, {6, 129}, {13, 66}, {4, 200}, {3, 257}, {2, 512}};
    s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[1] <= b[1]; };
    s.case_fits_rule = "T <= B1 (a whole row in one tile)";
    auto shape = [](const std::vector<int>& n) { return std::vector<long long>{n[0], n[1]}; };
    // Large magnitudes: a softmax that does not subtract the row maximum overflows exp. Short
    // rows are often all negative, so lanes past the end loaded as 0 would win the maximum.
    s.tensors = {{"x", false, shape, [](auto& v, rng& r) { fill_signed(v, r, 30.0); }},
                 {"z", true, shape, nullptr}};
    s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
      return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
    };
    s.reference = softmax_reference;
    s.rtol = 1e-4;
    s.atol = 1e-7;
    s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
    s.kernels = make_kernel_entries<bindings::softmax_fused>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
