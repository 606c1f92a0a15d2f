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
// build files (`build/modules/vector_add.stub`: .so, .log, .status, .deps, .source, .verdict).
struct module_files {
  std::string kernel_file;
  std::string prefix;
};
module_files files_of(const module_ref& ref, const module_options& options);

// The directory of the stubs these options check, absolute (puzzles/, or --puzzles DIR).
std::string stubs_dir(const module_options& options);

// Whether the CUDA backend runs this puzzle (`GPU` in its line of CMakeLists.txt).
bool gpu_enabled(const puzzle_spec& spec);

// Checks that a --puzzles directory exists; an error message otherwise.
std::optional<std::string> check_puzzles_dir(const std::string& dir);

// Brings the modules up to date, in one build of the project (several processes may ask at once:
// builds are serialized on a lock in the build directory). For each module, in order: nothing
// when it is ready to load, or the diagnostic that takes its place (`compile-error`, with the
// compiler's first errors in a few lines and the path of the full log).
std::vector<std::optional<tl::sim::diagnostic>> build_modules(const std::vector<module_ref>& refs,
                                                              const module_options& options);

// A loaded module: one launcher per kernel entry of the spec, in the spec's order. A launcher is
// a tp::sim_launcher for the simulator, a tp::gpu::launcher for the GPU.
struct loaded_module {
  std::vector<void (*)()> launchers;
};

// Loads a module built from the current source. An out-of-date module is never loaded: the
// diagnostic names the file that changed since it was built.
std::variant<loaded_module, tl::sim::diagnostic> load_module(const module_ref& ref,
                                                             const module_options& options);

}  // namespace tp
