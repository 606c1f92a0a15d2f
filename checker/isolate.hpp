// Checking a puzzle in a child process, so that a learner's kernel that crashes or never ends is
// reported for its puzzle while the other puzzles still run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <variant>

#include "checker/access_map.hpp"
#include "checker/check.hpp"
#include "checker/gpu.hpp"

namespace tp {

struct isolated_report {
  tp::status status = status::failed;
  std::string line;     // report_line
  std::string details;  // report_details
  std::string json;     // report_json
  std::optional<run_id> failed;  // failed_run: the run `show` replays
};

// How long one program of a kernel may run before the check stops it as a loop that never ends.
// A program of any puzzle's reference solution takes milliseconds.
inline constexpr double default_program_seconds = 2.0;

// Checks in a child process. The whole check may take timeout_seconds; one program of the kernel
// may run program_seconds. A stub's check with options.modules.sandbox (and without --gpu) runs
// in the sandbox (checker/sandbox.hpp): `tilepuzzles __sandbox-run` inside bubblewrap, given the
// module's bytes as checked against the hash its build recorded.
isolated_report check_isolated(const puzzle_spec& spec, const check_options& options,
                               double timeout_seconds,
                               double program_seconds = default_program_seconds);

// run_traced (checker/access_map.hpp) of a stub in the sandbox, for `show` and `check --html`:
// the runner runs the kernel once with the trace on and sends the run back; this process checks
// what it sent against the puzzle and draws it. The module is built first (in the sandbox) when
// modules.build. A run that crashes, never ends or tries what the sandbox forbids gives the
// diagnostic that says so.
std::variant<traced_run, tl::sim::diagnostic> run_traced_sandboxed(
    const puzzle_spec& spec, const module_options& modules, std::size_t case_index,
    std::uint64_t seed, std::optional<std::size_t> kernel_index, tl::sim::order order,
    double timeout_seconds);

// gpu::probe() in a child process. A process that has touched CUDA cannot use it in the children
// it forks, so the supervising process asks a child whether there is a GPU.
gpu::device_status probe_gpu_isolated();

// The same strings, from a report made in this process.
isolated_report summarize(const puzzle_report& report);

// Adds a note about how a puzzle was checked (its module was rebuilt, and why) to its details and
// its JSON object ("note").
void add_note(isolated_report& r, const puzzle_spec& spec, const std::string& kernel_file,
              const std::string& note);

// What a sandboxed runner is told about a check of `spec`, as `tilepuzzles __sandbox-run`'s
// arguments (after __sandbox-run): flag and value pairs, the puzzle, seed, orders, op budget and
// memory limit, then each option that differs from check_options' default (--large-tier 0,
// --gpu 1, --gpu-only 1, ...). --gpu only for a puzzle that runs on the GPU.
std::vector<std::string> runner_arguments(const puzzle_spec& spec, const check_options& options,
                                          long memory_mb);

// The runner's reading of runner_arguments (and of --trace CASE,KERNEL,ORDER, show's one run).
// Unknown flags are ignored.
struct runner_request {
  std::string puzzle_id;
  std::string puzzles_dir;
  std::string trace;
  long memory_mb = 0;
  check_options options;  // seed, orders, op budget and the flags: the rest as by default
};
runner_request read_runner_arguments(const std::vector<std::string>& arguments);

// `tilepuzzles __sandbox-run --puzzle ID ...`: the sandboxed check of one stub, inside bubblewrap
// (check_isolated starts it). It loads the module from descriptor 3 under the system-call
// filter's loading stage, runs the check under its kernel stage, notes where it is on the shared
// page of descriptor 4 and writes its report to descriptor 5.
int sandboxed_run_main(int argc, char** argv);

}  // namespace tp
