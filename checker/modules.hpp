// Puzzle modules: each puzzle's stub and solution, built into shared libraries of their own by
// the project's build (cmake/puzzle_modules.cmake) and loaded here with dlopen. Before a module
// is loaded it is brought up to date from the current source, or refused when it cannot be, so
// the checker never runs the kernel of an older build.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "checker/launch.hpp"
#include "checker/sandbox.hpp"
#include "simulator/diagnostic.hpp"

namespace tp {

struct puzzle_spec;

enum class backend { simulator, gpu };

// Where the kernels come from and whether they may be built.
struct module_options {
  // The stubs' directory as the user named it; empty for the build's own (puzzles/, or the
  // directory a grading build was configured with).
  std::string puzzles_dir;
  // Build a module that is out of date. Without it, an out-of-date module is refused.
  bool build = true;
  // Compile the stubs' modules in the sandbox (checker/sandbox.hpp), with this memory limit in
  // MiB; check_isolated runs them in one too. A solution's module is never sandboxed.
  bool sandbox = false;
  long memory_mb = sandbox::default_memory_mb;
  // Compiles a build may run at once; 0: one per core (`grade -j N` shares the cores out).
  int build_jobs = 0;
};

struct module_ref {
  const puzzle_spec* spec = nullptr;
  impl which = impl::stub;
  tp::backend backend = backend::simulator;
};

// The kernel file of a puzzle's stub or solution, as reports show it: "puzzles/vector_add.hpp",
// or "DIR/vector_add.hpp" for --puzzles DIR.
std::string shown_kernel_file(const puzzle_spec& spec, impl which, const module_options& options);

// Where a module's files are: the kernel file it is built from (absolute) and the prefix of its
// build files (`build/modules/vector_add.stub`: .so, .log, .status, .deps, .source, .sha256,
// .verdict).
struct module_files {
  std::string kernel_file;
  std::string prefix;
};
module_files files_of(const module_ref& ref, const module_options& options);

// The directory of the stubs these options check, absolute (puzzles/, or --puzzles DIR).
std::string stubs_dir(const module_options& options);

// Whether the CUDA backend runs this puzzle (`gpu` in its line of checker/puzzle_list.def).
bool gpu_enabled(const puzzle_spec& spec);

// Checks that a --puzzles directory exists; an error message otherwise.
std::optional<std::string> check_puzzles_dir(const std::string& dir);

// Brings the modules up to date, in one build of the project (several processes may ask at once:
// builds are serialized on a lock in the build directory). For each module, in order: nothing
// when it is ready to load, or the diagnostic that takes its place (`compile-error`, with the
// compiler's first errors in a few lines and the path of the full log).
// A module whose bytes are not what its build made (replaced or changed since: its SHA-256 differs
// from the one the build recorded beside it, cmake/record-module-hash.cmake) is rebuilt, and
// `notes`, when given, gets one line per such module, in the order of `refs` ("" for the others).
std::vector<std::optional<tl::sim::diagnostic>> build_modules(const std::vector<module_ref>& refs,
                                                              const module_options& options,
                                                              std::vector<std::string>* notes = nullptr);

// Builds one target of the main build (the GPU benchmark module, which `bench` builds on
// demand), serialized with the module builds; the build's output goes to `log`. Its exit status.
int build_target(const std::string& target, const std::string& log);

// A loaded module: one launcher per kernel entry of the spec, in the spec's order. A launcher is
// a tp::sim_launcher for the simulator, a tp::gpu::launcher for the GPU.
struct loaded_module {
  std::vector<void (*)()> launchers;
};

// The files the last successful compile of a module read (its depfile), absolute.
std::vector<std::string> module_dependencies(const module_ref& ref, const module_options& options);

// Loads a module built from the current source, whose bytes are what its build made. An
// out-of-date or changed module is never loaded: the diagnostic names the file that changed.
std::variant<loaded_module, tl::sim::diagnostic> load_module(const module_ref& ref,
                                                             const module_options& options);

// The bytes of a module built from the current source, read once and checked against the hash
// its build recorded, for a run in the sandbox (which sees no build directory): the runner loads
// exactly these bytes.
std::variant<std::string, tl::sim::diagnostic> verified_module_bytes(const module_ref& ref,
                                                                     const module_options& options);

// Loads a module from an open file (the sandboxed runner's copy of the verified bytes), with the
// checks of load_module against the spec.
std::variant<loaded_module, tl::sim::diagnostic> load_module_from_fd(const module_ref& ref,
                                                                     const module_options& options,
                                                                     int fd);

}  // namespace tp
