// Checking one puzzle: every case, every block size, every program order, then the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/modules.hpp"
#include "checker/spec.hpp"
#include "simulator/launch.hpp"

namespace tp {

// The run a check is about to start: which case, block sizes and order (empty on the GPU).
struct run_position {
  // "case 3 of 7: N0=5, T=34, B0=4, B1=64, order reverse", or "on the GPU, case ..."
  std::string label;
  std::size_t case_index = 0;
  const std::vector<int>* sizes = nullptr;
  const std::vector<int>* blocks = nullptr;
  std::string order;
  std::size_t kernel_index = 0;  // in spec.kernels: the block sizes (and dtype)
};

// The large tier's rows run 2^17 elements and its attention 65539 keys: a program of it may run
// this many times the op budget of the small cases (still a few milliseconds for a solution).
inline constexpr unsigned long long large_tier_op_budget_factor = 16;

// A run whose outputs the check compares with the reference: a small case or one of the large
// tier with one kernel entry in one program order, or a case on the GPU. `judged_runs` lists them
// in the order the check runs them.
struct judged_run {
  std::size_t kernel_index = 0;  // in spec.kernels
  std::size_t case_index = 0;    // in spec.cases
  std::string order;             // "forward", "reverse" or "shuffle"; "" on the GPU
  bool gpu = false;
  bool operator==(const judged_run&) const = default;
};

struct check_options {
  impl which = impl::stub;
  std::uint64_t seed = 0;
  std::vector<tl::sim::order> orders{tl::sim::order::forward, tl::sim::order::reverse,
                                     tl::sim::order::shuffle};
  bool gpu = false;
  // With `gpu`, of a puzzle that runs on the GPU: only the GPU runs, none of the simulator's (its
  // cases, large tier and size bounds), because a check of the same stub with the same options
  // has just made them and passed. The sandboxed check --gpu runs the simulator's check first in
  // a runner of its own (a failing stub costs no GPU module's compile), then this in a second.
  bool gpu_only = false;
  // Where the kernels come from (--puzzles DIR) and whether their modules may be built.
  module_options modules;
  // The caller has already built the simulator modules (`tilepuzzles check` builds every chosen
  // puzzle's module in one go before it checks them one by one): only load them.
  bool simulator_modules_built = false;
  // The simulator module's launchers, already loaded (the sandboxed runner loads the module from
  // the bytes the supervising process checked): used instead of finding and loading the module.
  std::vector<void (*)()> simulator_launchers;
  // The same for the GPU module (the sandboxed runner of check --gpu).
  std::vector<void (*)()> gpu_launchers;
  unsigned long long op_budget = tl::sim::launch_options{}.op_budget;
  // Run the spec's large tier (test_case::large) once the small cases pass, in the first of
  // `orders` only. The test suite's sweeps over many seeds leave it to one seed.
  bool large_tier = true;
  // Run every kernel entry at the spec's size bounds, without buffers, after the large tier.
  bool size_bounds = true;
  // After a wrong-result or nan-inf, run the case again to find whether the masked-off lanes of a
  // load (its `other`) decide the result, and say which load (a few reruns of the failing case).
  bool probe_other = true;
  // Called before each run with where the check is, e.g. to report where a crash happened.
  std::function<void(const run_position&)> on_case;
  // Judges the outputs of each judged run (number `number` of judged_runs) somewhere else: the
  // sandboxed runner asks the process that supervises it, which made the inputs and the
  // reference's outputs itself (docs/ARCHITECTURE.md, "The verdict is the supervisor's"). It
  // returns nothing when the outputs are right, else the reference's tensors (the inputs and
  // the expected outputs), for the passes that explain a wrong result. When it is set the check
  // computes no reference outputs of its own.
  std::function<std::optional<std::vector<tensor>>(std::size_t number, const judged_run& run,
                                                   const std::vector<tensor>& got)>
      judge;
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
  int kernel_index = -1;     // in spec->kernels: the block sizes of that run
  std::string case_about;    // what that case holds
  std::vector<tensor_counters> counters;
  int runs = 0;              // simulator runs
  int bound_runs = 0;        // dry runs at the size bounds (puzzle_spec::size_bounds)
  unsigned long long max_program_ops = 0;  // the most tile operations one program ran
  int gpu_runs = 0;          // GPU runs
  std::string gpu_note;      // what happened on the GPU, when --gpu was given
  bool passed() const { return status == status::solved; }
  std::string case_label() const;  // "3 of 7: N0=5, T=34, B0=4, B1=64, order reverse"
};

puzzle_report check_puzzle(const puzzle_spec& spec, const check_options& options);

// Whether a check with these options makes only the GPU's runs (check_options::gpu_only, for a
// puzzle whose kernels run on the GPU from a module): otherwise gpu_only changes nothing.
bool checks_only_on_gpu(const puzzle_spec& spec, const check_options& options);

// The runs whose outputs a check with these options compares with the reference, in its order
// (every small case with every kernel entry in every order, the large tier in the first order,
// then on the GPU; with gpu_only, the GPU's alone), as far as no run fails. The dry runs at the
// size bounds have no outputs.
std::vector<judged_run> judged_runs(const puzzle_spec& spec, const check_options& options);

// The report of a check that failed on judged run `run` with `d`, worded as check_puzzle words
// it (the case's label, what the case holds, how to see the run).
puzzle_report judged_failure(const puzzle_spec& spec, const check_options& options,
                             const judged_run& run, tl::sim::diagnostic d);

// "case 3 of 7: N0=5, ..., order reverse", or "on the GPU, case ...": where compare_outputs
// says a judged run was.
std::string judged_where(const puzzle_spec& spec, const judged_run& run);

// What a report says about the GPU after a check with --gpu whose GPU runs all matched.
std::string gpu_note(const puzzle_spec& spec, int gpu_runs, bool given = false);

// What the size bounds are, as a report about a failing bound says.
std::string size_bounds_about(const puzzle_spec& spec);

// The simulator runs of a check in every program order: each kernel entry (block sizes) on each
// small case it runs, in forward, reverse and shuffled order, and on each case of the large tier
// in forward order. What a solved puzzle's report counts (the dry runs at the size bounds apart).
int simulator_runs(const puzzle_spec& spec);

// "N0=5, T=34, B0=4, B1=64, order reverse" (the order left out when empty).
// A kernel entry's dtype other than float32 is named after the block sizes: "..., D=64, float16".
std::string case_label(const puzzle_spec& spec, const std::vector<int>& sizes,
                       const std::vector<int>& blocks, const std::string& order,
                       dtype element = dtype::float32);

// "3 of 7: N0=5, ..., order reverse": the case's number as `show --case` takes it, then its label.
std::string numbered_case_label(const puzzle_spec& spec, std::size_t case_index,
                                const std::vector<int>& blocks, const std::string& order,
                                dtype element = dtype::float32);

// One simulator run of a check, as `tilepuzzles show` replays it.
struct run_id {
  int case_index = -1;    // in spec.cases
  int kernel_index = -1;  // in spec.kernels
  std::string order;      // "forward", "reverse" or "shuffle"
  std::uint64_t seed = 0;
};

// The run a report failed on, when it failed in a simulator run that `show` can draw (not a
// compile error, nor a failure on the GPU).
std::optional<run_id> failed_run(const puzzle_report& report);

// `show`'s arguments that replay a run: "--case 3 --blocks B0=4,B1=64 --order reverse", with
// "--seed N" when N is not 0 (the dtype after the block sizes where only it tells two apart).
std::string replay_arguments(const puzzle_spec& spec, const run_id& run);

// "B0=4,B1=64" (and ",float16" where the block sizes alone name two of the puzzle's kernels).
std::string blocks_argument(const puzzle_spec& spec, std::size_t kernel_index);

// The kernel entry `--blocks` names ("B0=4,B1=64", "4,64", with an optional dtype such as
// "float16"), or nullopt with `error` saying what the puzzle's block sizes are.
std::optional<std::size_t> parse_blocks(const puzzle_spec& spec, const std::string& text,
                                        std::string& error);

// The inputs and expected outputs of one case, as the checker generates them.
struct case_data {
  std::vector<tensor> tensors;   // inputs filled, outputs sized
  std::vector<tensor> expected;  // the reference's outputs (same order as tensors; inputs too)
};
// Tensors without a dtype of their own take `kernel_dtype` (a kernel_entry's). Without
// `with_reference`, `expected` is left empty (a check whose outputs are judged elsewhere).
case_data make_case(const puzzle_spec& spec, const test_case& the_case, std::uint64_t seed,
                    std::size_t case_index, dtype kernel_dtype = dtype::float32,
                    bool with_reference = true);

// Compares outputs with the reference: a nan-inf or wrong-result diagnostic, or nothing.
// `nonfinite_cause`, when known (from a traced rerun), replaces nan-inf's general advice.
std::optional<tl::sim::diagnostic> compare_outputs(const puzzle_spec& spec,
                                                   const std::vector<tensor>& got,
                                                   const std::vector<tensor>& expected,
                                                   const std::string& where,
                                                   const std::string& nonfinite_cause = {});

// Adds to a wrong-result or nan-inf diagnostic of case `case_index` run with `kernel` the load
// whose masked-off lanes decide the result, when there is one: the case is run again a few times,
// with the `other` of each masked load replaced by the identity of a sum, a maximum and a
// minimum. `d.source` becomes that load's line.
void explain_by_other(const puzzle_spec& spec, std::size_t case_index, const kernel_entry& kernel,
                      sim_launcher launcher, const case_data& data,
                      const tl::sim::launch_options& launch, tl::sim::diagnostic& d);

// The first element of an output that is not finite where the reference is: its tensor and
// offset, or {-1, -1}.
std::pair<int, long long> first_nonfinite(const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected);

}  // namespace tp
