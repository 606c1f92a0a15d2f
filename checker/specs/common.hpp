// What the puzzle specs (checker/specs/STEM.hpp) share: Eigen views of tensors, fills, common
// budgets, and the cases of the two long softmaxes.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "checker/binding.hpp"
#include "checker/puzzle_list.hpp"
#include "checker/spec.hpp"

namespace tp::specs {

// A puzzle's spec from its line of checker/puzzle_list.def (id, number, title, its files), its
// binding (the kernel entries, one per block-size set) and its spec header's describe() (the rest).
template <class Binding>
puzzle_spec make_spec(void (*describe)(puzzle_spec&)) {
  const puzzle_entry& e = *entry_of<Binding>;
  puzzle_spec s;
  s.id = e.id;
  s.number = e.number;
  s.title = e.title;
  s.stub_file = "puzzles/" + std::string(e.stem) + ".hpp";
  s.solution_file = "solutions/" + std::string(e.stem) + ".hpp";
  s.doc_file = "docs/puzzles/" + std::string(e.id) + ".md";
  describe(s);
  s.kernels = make_kernel_entries<Binding>();
  return s;
}

// What the unit cmake/puzzle_list.cmake generates for each puzzle defines: its spec, made once.
#define TILEPUZZLES_DEFINE_SPEC(stem)                                                   \
  const tp::puzzle_spec& tp::specs::stem::spec() {                                     \
    static const tp::puzzle_spec made = make_spec<tp::bindings::stem>(&describe);       \
    return made;                                                                        \
  }

// References compute in double.
using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Eigen::ArrayXd as_array(const tensor& t);
// A row-major [rows, cols] view of t's values starting at element `first`, in double.
matrix as_matrix(const tensor& t, long long rows, long long cols, long long first = 0);
void set_from(tensor& t, const Eigen::ArrayXd& values);
void set_from(tensor& t, const matrix& values, long long first = 0);

// z = softmax(x) along each row, x and z [sizes[0], sizes[1]] (tensors 0 and 1).
void softmax_reference(const std::vector<int>& sizes, std::vector<tensor>& tensors);

// Puzzles 9 and 10, the softmax of long rows: the same cases, tensors and reference; `passes` is
// how often each x element may be read (3 and 2).
void describe_long_softmax(puzzle_spec& s, int passes);

// A tensor's shape made of the case's sizes at these indices: sizes_at({1, 0}) is [N1, N0].
std::function<std::vector<long long>(const std::vector<int>&)> sizes_at(
    std::vector<int> size_indices);
// An input's usual fill: fill_signed with this spread.
fill_fn signed_fill(double spread = 1.0);

// Fills for the cases built against a class of wrong kernels (test_case::fills).
// Values spread like fill_signed(spread), around `center`: rows far below zero (center -1000) make
// exp(x) underflow to 0 for every element, rows far above (+1000) overflow it.
case_fill values_around(double center, double spread);
// Magnitudes uniform in [low, high]: all positive (sign 1), all negative (-1), or each of either
// sign at random (0).
case_fill magnitudes_between(double low, double high, int sign);
// Values spread like fill_signed(spread), except the last element of every row (the last axis),
// which is `peak`: the row's maximum arrives in its last block, far above the rest.
case_fill peak_at_row_end(double peak, double spread);
// Magnitudes uniform in [low, high], one random sign for each whole row (the last axis): the dot
// product of such a row with a vector of one sign is far from zero, below or above.
case_fill magnitudes_with_row_sign(double low, double high);
// Integers uniform in [low, high], one random sign for each whole row (the last axis): the dot
// product of such a row with a row of one sign is far from zero, below or above, and exact.
case_fill integers_with_row_sign(int low, int high);
// Values spread like fill_signed(spread), except the last row (along the second-to-last axis) of
// every matrix, all `peak`: a key that outscores every other, in the last block of keys.
case_fill peak_in_last_row(double peak, double spread);

// Integers uniform in [low, high] (both included), times `unit` (a power of two), all positive
// (sign 1), all negative (-1), or each of either sign at random (0): products and sums of such
// values stay exact in float32 while they need fewer than 24 bits, so a kernel's order of
// operations cannot show at magnitudes where rounding otherwise would.
case_fill integers_between(int low, int high, int sign, double unit = 1.0);
// Every element `value`, except the last row (along the second-to-last axis) of every matrix,
// all `last`: keys that tie exactly, and one that outscores them by a wide margin.
case_fill rows_equal_but_last(double value, double last);

// A case of the large tier (test_case::large): the checker runs it only once every small case
// passed.
test_case large_case(std::vector<int> sizes, std::string about,
                     std::vector<std::pair<std::string, case_fill>> fills = {});

// cdiv(a, b) = (a + b - 1) / b: programs needed to cover a elements b at a time (in 64 bits, so
// that the size bounds' 2^31 - 1 elements do not wrap).
constexpr int cdiv(int a, int b) { return static_cast<int>((1LL * a + b - 1) / b); }

// The cases of the puzzles with a 2-D grid over x[N0] (axis 0, blocks of B0) and y[N1] (axis 1,
// blocks of B1), sizes (N0, N1); and their grid, (cdiv(N0, B0), cdiv(N1, B1), 1).
std::vector<test_case> outer_block_cases();
std::array<int, 3> outer_block_grid(const std::vector<int>& sizes, const std::vector<int>& blocks);
// outer_block_cases() and, third, a case of 35 x 66 where x and y are all negative (so that every
// product is positive), described to the learner as `about` says.
std::vector<test_case> outer_block_cases_with_negative_inputs(std::string about);
// The large tier of the puzzles with a 2-D grid over x[N0] and y[N1]: each axis past 2^16 in
// its turn, with the other short.
std::vector<test_case> outer_block_large_cases();
// The shapes of the puzzles over the rows of x[N0, D], B0 rows a program walking each row in
// blocks of B1 columns (rms-norm, layer-norm, cross-entropy): ragged last blocks, a last program
// with one real row, long rows, rows past 2^12, then the large tier's rows past 2^17 (described
// as `long_rows_about` says, where a puzzle says more) and 4099 rows.
std::vector<test_case> row_block_cases(
    std::string long_rows_about = "The large tier: rows of 131075 = 2^17 + 3, past every loop "
                                  "bound or array a kernel might hard-code below them (8192, "
                                  "16384, 65536).");
// The tensors of the outer puzzles: x[N0] (spread 1), y[N1] (spread y_spread), output z[N1, N0].
std::vector<tensor_spec> outer_tensors(double y_spread);
// z[j, i] = x[i] + y[j] (tensors 0, 1 and 2).
void outer_add_reference(const std::vector<int>& sizes, std::vector<tensor>& tensors);

// Every element of each named buffer is loaded at most `times` times over the whole launch.
budget each_element_read_at_most(std::vector<std::string> names, int times);
// The same with a bound that depends on the case's sizes: `times_name` says what it is ("KH * KW")
// and `why` why it is the bound ("once per filter tap").
budget each_element_read_at_most(std::vector<std::string> names, std::string times_name,
                                 std::function<int(const std::vector<int>& sizes)> times,
                                 std::string why);
// Every element of each named buffer is stored at most `times` times over the whole launch.
budget each_element_written_at_most(std::vector<std::string> names, int times);
// The loads of the named buffer, over the whole launch and on active lanes, number at most
// `bound(sizes)`: `bound_name` says what it is ("N0 * V + N0") and `why` why.
budget loads_in_all_at_most(std::string name, std::string bound_name,
                            std::function<long long(const std::vector<int>& sizes)> bound,
                            std::string why);
// The atomics on the named buffer (their active lanes), over the whole launch, number at most
// `per_program(sizes, blocks)` for each program of the grid: `bound_name` says what that is
// ("NB") and `why` why (a histogram's program adds its counts to each bin once).
budget atomics_per_program_at_most(
    std::string name, std::string bound_name,
    std::function<long long(const std::vector<int>& sizes, const std::vector<int>& blocks)>
        per_program,
    std::string why);
// No program loads any one element of each named buffer more than `times` times.
budget each_program_reads_each_element_at_most(std::vector<std::string> names, int times);

}  // namespace tp::specs
