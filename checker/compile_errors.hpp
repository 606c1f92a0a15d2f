// Turning a compiler's output into a short report a learner can act on: the learner's own file and
// line first (not a line inside tile/), the compiler's message or static_assert text, the block
// sizes it was instantiated with, and a hint for the C++ pitfalls a Triton user meets. Each
// distinct error once, however many block sizes repeat it; at most about 15 lines in all.
#pragma once

#include <string>
#include <vector>

namespace tp {

struct compile_log_context {
  std::string kernel_file;        // the stub or solution that was compiled, absolute
  std::string shown_kernel_file;  // as reports show it, e.g. "puzzles/vector_add.hpp"
  std::string learner_dir;        // the directory of the kernel file, absolute: its files are the
  std::string shown_learner_dir;  // learner's (helpers included), shown as "puzzles"
  std::string source_dir;         // the project, absolute: its solutions/ are out of reach
  std::string log_file;           // the full log, as reports show it
  bool gpu = false;               // nvcc's output (the GPU module) rather than g++'s
};

struct compile_report {
  std::string message;  // a few lines, without the leading "compile-error: "
  std::string source;   // "file:line" of the first error in the learner's file, if any
  int errors = 0;       // distinct errors found
};

// Reads the output of g++ (or nvcc) for one module. Messages are expected in English (the
// build's launcher runs the compiler with LC_ALL=C); ANSI colours are ignored.
compile_report summarize_compile_log(const std::string& log, const compile_log_context& context);

}  // namespace tp
