// Diagnostics: what the simulator and the checker report about a kernel.
#pragma once

#include <array>
#include <exception>
#include <string>
#include <vector>

namespace tl::sim {

// The stable vocabulary of diagnostic kinds. JSON consumers and graders match on these strings;
// never rename one. docs/simulator.md explains each.
namespace kind {
inline constexpr const char* not_solved = "not-solved";
inline constexpr const char* wrong_result = "wrong-result";
inline constexpr const char* out_of_bounds = "out-of-bounds";
inline constexpr const char* poison_store = "poison-store";
inline constexpr const char* uninitialized_read = "uninitialized-read";
inline constexpr const char* unwritten_output = "unwritten-output";
inline constexpr const char* race_write_write = "race-write-write";
inline constexpr const char* race_read_write = "race-read-write";
inline constexpr const char* index_overflow = "index-overflow";
inline constexpr const char* op_budget = "op-budget";
inline constexpr const char* efficiency_budget = "efficiency-budget";
inline constexpr const char* nan_inf = "nan-inf";
inline constexpr const char* crash = "crash";
inline constexpr const char* compile_error = "compile-error";
// The stub tried what the sandbox forbids a kernel (open a file, run a program, start a process,
// use the network, signal another process): checker/syscall_filter.hpp.
inline constexpr const char* sandbox = "sandbox";
}  // namespace kind

// One offending lane of a tile operation.
struct lane_report {
  long long lane = 0;            // row-major index of the lane in its tile
  std::vector<int> coords;       // the lane's coordinates in the tile
  long long offset = 0;          // element offset into the buffer
  std::string note;              // e.g. "written by program (2, 0, 0)"
};

struct diagnostic {
  std::string kind;
  std::string message;           // complete, human-readable, may span lines
  std::array<int, 3> program{-1, -1, -1};
  std::string buffer;            // name of the buffer involved, if any
  std::string source;            // "file:line" of the kernel operation, if known
  std::vector<lane_report> lanes;
  // Where the bad value was made, when known: "the masked load without `other` at
  // puzzles/long_sum.hpp:23" (poison), "0 * inf: 0 * inf = nan at ..." (nan-inf).
  std::string cause;
};

// Thrown by a tile operation that found an error; the grid runner adds the program id. Visible
// from every shared object: it is thrown in the simulator's library and caught in a puzzle's
// module (built with hidden visibility), and libc++ matches a handler by the type_info's address.
struct [[gnu::visibility("default")]] kernel_error : std::exception {
  diagnostic diag;
  explicit kernel_error(diagnostic d) : diag(std::move(d)) {}
  const char* what() const noexcept override { return diag.message.c_str(); }
};

}  // namespace tl::sim
