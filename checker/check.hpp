// Checking one puzzle: every case, every block size, every program order, then the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checker/modules.hpp"
#include "checker/spec.hpp"
#include "simulator/launch.hpp"

namespace tp {

// The run a check is about to start: which case, block sizes and order (empty on the GPU).
struct run_position {
  std::string label;  // "case N0=5, T=34, B0=4, B1=64, order reverse", or "on the GPU, case ..."
  std::size_t case_index = 0;
  const std::vector<int>* sizes = nullptr;
  const std::vector<int>* blocks = nullptr;
  std::string order;
};

// The large tier's rows run 2^17 elements and its attention 65539 keys: a program of it may run
// this many times the op budget of the small cases (still a few milliseconds for a solution).
inline constexpr unsigned long long large_tier_op_budget_factor = 16;

struct check_options {
  impl which = impl::stub;
  std::uint64_t seed = 0;
  std::vector<tl::sim::order> orders{tl::sim::order::forward, tl::sim::order::reverse,
                                     tl::sim::order::shuffle};
  bool gpu = false;
  // Where the kernels come from (--puzzles DIR) and whether their modules may be built.
  module_options modules;
  // The caller has already built the simulator modules (`tilepuzzles check` builds every chosen
  // puzzle's module in one go before it checks them one by one): only load them.
  bool simulator_modules_built = false;
  // The simulator module's launchers, already loaded (the sandboxed runner loads the module from
  // the bytes the supervising process checked): used instead of finding and loading the module.
  std::vector<void (*)()> simulator_launchers;
  unsigned long long op_budget = tl::sim::launch_options{}.op_budget;
  // Run the spec's large tier (test_case::large) once the small cases pass, in the first of
  // `orders` only. The test suite's sweeps over many seeds leave it to one seed.
  bool large_tier = true;
  // Run every kernel entry at the spec's size bounds, without buffers, after the large tier.
  bool size_bounds = true;
  // Called before each run with where the check is, e.g. to report where a crash happened.
  std::function<void(const run_position&)> on_case;
};

struct tensor_counters {
  std::string name;
  long long loads = 0, stores = 0, bytes = 0;
  long long masked = 0;
  int max_element_reads = 0;
  int max_program_element_reads = 0;
  long long max_program_loads = 0;
};

enum class status { solved, not_solved, failed };

struct puzzle_report {
  const puzzle_spec* spec = nullptr;
  impl which = impl::stub;
  std::string kernel_file;   // the file checked, as shown: "puzzles/vector_add.hpp"
  tp::status status = status::failed;
  std::vector<tl::sim::diagnostic> diagnostics;
  // The case the report is about: the failing one, or the last one checked.
  std::vector<int> sizes;
  std::vector<int> blocks;
  tp::dtype dtype = tp::dtype::float32;  // the kernel entry's element type
  std::string order;
  std::uint64_t seed = 0;
  int case_index = -1;       // in spec->cases; -1 when no case ran
  std::string case_catches;  // what that case is there to catch
  std::vector<tensor_counters> counters;
  int runs = 0;              // simulator runs
  int bound_runs = 0;        // dry runs at the size bounds (puzzle_spec::size_bounds)
  unsigned long long max_program_ops = 0;  // the most tile operations one program ran
  int gpu_runs = 0;          // GPU runs
  std::string gpu_note;      // what happened on the GPU, when --gpu was given
  bool passed() const { return status == status::solved; }
  std::string case_label() const;
};

puzzle_report check_puzzle(const puzzle_spec& spec, const check_options& options);

// "N0=5, T=34, B0=4, B1=64, order reverse" (the order left out when empty).
// A kernel entry's dtype other than float32 is named after the block sizes: "..., D=64, float16".
std::string case_label(const puzzle_spec& spec, const std::vector<int>& sizes,
                       const std::vector<int>& blocks, const std::string& order,
                       dtype element = dtype::float32);

// The inputs and expected outputs of one case, as the checker generates them.
struct case_data {
  std::vector<tensor> tensors;   // inputs filled, outputs sized
  std::vector<tensor> expected;  // the reference's outputs (same order as tensors; inputs too)
};
// Tensors without a dtype of their own take `kernel_dtype` (a kernel_entry's).
case_data make_case(const puzzle_spec& spec, const test_case& the_case, std::uint64_t seed,
                    std::size_t case_index, dtype kernel_dtype = dtype::float32);

// Compares outputs with the reference: a nan-inf or wrong-result diagnostic, or nothing.
// `nonfinite_cause`, when known (from a traced rerun), replaces nan-inf's general advice.
std::optional<tl::sim::diagnostic> compare_outputs(const puzzle_spec& spec,
                                                   const std::vector<tensor>& got,
                                                   const std::vector<tensor>& expected,
                                                   const std::string& where,
                                                   const std::string& nonfinite_cause = {});

// The first element of an output that is not finite where the reference is: its tensor and
// offset, or {-1, -1}.
std::pair<int, long long> first_nonfinite(const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected);

}  // namespace tp
