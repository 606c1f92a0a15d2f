// Maps of one run of a kernel: for each buffer, which elements each program loaded and stored,
// the lanes a mask switched off, the active lanes that fell outside the buffer, and the output
// elements that are wrong or never written. `tilepuzzles show` prints them in the terminal and
// `--html` draws them as SVG (checker/html_report.hpp). The run records the simulator's access
// trace (simulator/trace.hpp), which checking never does.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "checker/check.hpp"
#include "simulator/trace.hpp"

namespace tp {

struct traced_run {
  const puzzle_spec* spec = nullptr;
  impl which = impl::stub;
  std::string kernel_file;                 // as reports show it
  std::size_t case_index = 0;              // into spec->cases
  std::vector<int> sizes, blocks;
  std::size_t kernel_index = 0;            // into spec->kernels
  tp::dtype dtype = tp::dtype::float32;    // the kernel entry's
  std::array<int, 3> grid{1, 1, 1};
  std::string order = "forward";
  std::optional<tl::sim::diagnostic> problem;  // what the run found, as `check` words it
  std::vector<tensor> tensors;             // the values after the run
  std::vector<std::vector<bool>> wrong;    // per tensor: output elements wrong or never written
  std::vector<tensor_counters> counters;
  std::vector<tl::sim::access_trace::entry> entries;
  bool truncated = false;
  long long programs_run = 0;
  std::string printed;                     // what the kernel's tl::print calls printed
  std::string label() const;               // "case 2 of 6: N0=100, B0=32, order forward", as check says it
  long long program_count() const { return 1LL * grid[0] * grid[1] * grid[2]; }
};

// The case `show` runs when none is named: the first that has more than one program (with the
// kernel entry `kernel_index`, when given, among the cases that entry runs).
std::size_t default_case(const puzzle_spec& spec,
                         std::optional<std::size_t> kernel_index = std::nullopt);

// The first kernel entry (block sizes) that runs case `case_index`.
std::optional<std::size_t> kernel_for_case(const puzzle_spec& spec, std::size_t case_index);

// Runs case `case_index` of the puzzle's kernel once (the first block sizes that fit the case,
// programs in forward order) with the access trace on. The kernel's module is built first when
// `modules.build`; a kernel that does not compile gives its compile-error diagnostic.
// `kernel_index` and `order` pick another run, such as the one a check failed on.
std::variant<traced_run, tl::sim::diagnostic> run_traced(
    const puzzle_spec& spec, impl which, const module_options& modules, std::size_t case_index,
    std::uint64_t seed = 0, std::optional<std::size_t> kernel_index = std::nullopt,
    tl::sim::order order = tl::sim::order::forward);

// run_traced with the module's launchers already loaded (the sandboxed runner's).
std::variant<traced_run, tl::sim::diagnostic> run_traced_with(
    const puzzle_spec& spec, impl which, const std::string& kernel_file,
    const std::vector<void (*)()>& launchers, std::size_t case_index, std::uint64_t seed,
    std::optional<std::size_t> kernel_index, tl::sim::order order);

// What one element looks like in a map.
enum class cell_state : unsigned char { none, untouched, masked, loaded, stored, loaded_stored };
struct cell {
  cell_state state = cell_state::untouched;
  int program = -1;  // the program that touched it (stored, else loaded); -2 for several
  bool wrong = false;
};

struct outside_lanes {
  int program = 0;
  bool store = false;
  long long count = 0, first = 0, last = 0;  // offsets
};

struct buffer_view {
  std::string name;
  std::vector<long long> shape;
  bool output = false;
  std::vector<cell> cells;  // one per element
  std::vector<outside_lanes> outside;
  long long masked_outside = 0;  // masked-off lanes whose address is outside the buffer
  long long wrong_count = 0;
};

// The maps of every buffer, for one program (its linear id) or for all (-1).
std::vector<buffer_view> views_of(const traced_run& run, int program);

// A buffer drawn as rows and columns (the last axis across, the others down; a 1-D buffer
// wraps), in at most max_rows x max_cols cells: a cell of a large buffer merges what happened to
// any of its elements.
struct map_grid {
  long long rows = 1, cols = 1;              // elements
  long long shown_rows = 1, shown_cols = 1;  // cells
  long long rows_per_cell = 1, cols_per_cell = 1;  // elements a cell covers (the last ones fewer)
  std::vector<cell> cells;                   // shown_rows x shown_cols, row-major
  bool summarized() const { return rows != shown_rows || cols != shown_cols; }
};
map_grid grid_of(const buffer_view& view, int max_rows, int max_cols);

// "(1, 0, 0)" -> linear id in the run's grid; nullopt with `error` set when it is not one.
std::optional<int> parse_program(const std::string& text, const std::array<int, 3>& grid,
                                 std::string& error);

// "(1, 0, 0)" for a linear id in `grid`.
std::string program_name(const std::array<int, 3>& grid, int linear);

// The character a program is drawn with: 0-9, a-z, A-Z, then again.
char program_symbol(int linear);

struct render_options {
  bool color = false;
  int max_rows = 32;  // conv2d's 4 images of 8 rows, one row a cell
  int max_cols = 64;
};

// The maps as terminal text, with a legend, the lanes outside each buffer and the counters.
std::string render_maps(const traced_run& run, int program, const render_options& options);

}  // namespace tp
