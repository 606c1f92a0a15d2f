// Puzzle 5: the outer sum of two vectors over a 2-D grid of programs, masked on two edges.
#include "checker/bindings/outer_add_block.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

const puzzle_spec& outer_add_block() {
  static const puzzle_spec spec = [] {
    puzzle_spec s;
    identify(s, bindings::outer_add_block::id, 5, "Outer add, blocked", "outer_add_block");
    s.summary = "z[j, i] = x[i] + y[j] for x[N0], y[N1], z[N1, N0]; a [B1, B0] tile per program "
                "on a 2-D grid";
    s.size_names = {"N0", "N1"};
    s.block_names = {"B0", "B1"};
    s.cases = outer_block_cases();
    s.blocked_sizes = {{0, 0}, {1, 1}};
    s.tensors = outer_tensors(10.0);
    s.grid = outer_block_grid;
    s.reference = outer_add_reference;
    s.rtol = 1e-6;
    s.atol = 1e-6;
    // Each program needs its B0 elements of x and its B1 of y once; every program of a grid
    // column reads the same x tile, so the launch-wide count is not the budget.
    s.budgets = {each_program_reads_each_element_at_most({"x", "y"}, 1),
                 each_element_written_at_most({"z"}, 1)};
    s.kernels = make_kernel_entries<bindings::outer_add_block>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
