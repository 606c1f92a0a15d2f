// The running program's context, and the checks every memory access goes through.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "simulator/buffer.hpp"
#include "simulator/diagnostic.hpp"
#include "simulator/origin.hpp"

namespace tl::sim {

// Where a launch is, written as it runs into memory that a supervising process can read (shared
// with it): a kernel that crashes the process or never ends is then reported with its program and
// the kernel line of its last tile operation. See set_progress_tracker (simulator/launch.hpp).
struct progress_tracker {
  std::array<int, 3> program{-1, -1, -1};  // the program running; -1 outside a launch
  unsigned long long programs_started = 0;
  unsigned last_line = 0;                   // the program's last tile operation; 0: none yet
  char last_file[240] = {};                 // its file, as source_string shows it
  const char* last_file_seen = nullptr;     // the writer's own: the name last_file was made from

  void note(const std::source_location& loc);
};
class access_trace;

struct context {
  std::array<int, 3> program{0, 0, 0};
  std::array<int, 3> grid{1, 1, 1};
  int linear_program = 0;
  unsigned long long ops = 0;
  unsigned long long op_budget = 0;
  bool lane_by_lane = false;  // every operation through the reference path (launch_options)
  bool dry = false;           // a dry launch (launch_options::dry): offsets checked, no data
  std::source_location last_op{};
  progress_tracker* tracker = nullptr;
  nonfinite_trace* nonfinite = nullptr;  // set while the launch traces NaN and infinities
  other_probe* other = nullptr;  // set while the launch watches (or replaces) masked loads' `other`
  access_trace* trace = nullptr;  // set when the launch records which elements programs touch
  std::string* print_output = nullptr;  // where tl::print writes, when the launch collects it
  int num_warps = 4;  // the kernel's, where the checker knows it: how the GPU would pipeline its loads

  // Counts one tile operation against the program's budget: a loop that never ends stops here.
  void tick(const std::source_location& loc);
  // The same for an operation that has no line of its own (elementwise arithmetic on data tiles):
  // counted, with the last line kept.
  void count() {
    if (++ops > op_budget) over_budget();
  }
  [[noreturn]] void over_budget() const;
};

// The context of the program being simulated on this thread; null outside a launch.
context& current_context();
const context* current_context_or_null();
void set_current_context(context* ctx);
// Whether this thread's launch runs every operation lane by lane; false outside a launch.
bool lane_by_lane();

// "kernels/vector_add.hpp:14", relative to the project when the file is inside it.
std::string source_string(const std::source_location& loc);
std::string program_string(const std::array<int, 3>& program);
// "(x, y, z)" of a program given by its linear id in the current launch.
std::string program_string(int linear_program);
std::string coords_string(const int* c, int rank);

// Collects the offending lanes of one load or store and raises the most important problem found.
class access_check {
 public:
  access_check(const char* verb, const buffer& buf, const std::source_location& loc, int rank)
      : verb_(verb), buf_(buf), loc_(loc), rank_(rank) {}

  // Problem categories, in the order they are reported when several occur in one operation.
  enum problem {
    poison_mask,     // a mask lane that is poison
    poison_offset,   // an offset lane that is poison
    overflow,        // an offset outside int32
    outside,         // out of bounds
    poison_value,    // storing poison
    unwritten,       // reading an element nothing wrote
    duplicate,       // two active lanes of one store on one element
    race_ww,         // writing an element another program wrote
    race_rw,         // reading/writing an element another program wrote/read
    atomic_ww,       // a plain store and an atomic of two programs on one element
    atomic_rw,       // a plain load and an atomic of two programs on one element
    problem_count
  };

  void add(problem p, long long lane, const int* coords, long long offset, std::string note = {}) {
    auto& cat = found_[p];
    if (cat.count++ < max_listed) cat.lanes.push_back({lane, {coords, coords + rank_}, offset,
                                                        std::move(note)});
  }
  // Whether the access has a mask of its own (not the all-on mask of a load or store without
  // one): lanes out of bounds then got through the mask, and the advice is about its bound.
  void set_masked(bool masked) { masked_ = masked; }
  // Where the poison of the first poisoned mask, offset or value came from.
  void note_origin(const poison_origin& origin) {
    if (!origin_.what) origin_ = origin;
  }
  bool any() const {
    for (const auto& c : found_)
      if (c.count) return true;
    return false;
  }
  // Throws kernel_error describing the first problem category found, if any.
  void raise_if_any() const {
    if (any()) raise();
  }

  static constexpr int max_listed = 4;

 private:
  [[noreturn]] void raise() const;

  struct category {
    long long count = 0;
    std::vector<lane_report> lanes;
  };
  const char* verb_;
  bool masked_ = false;
  const buffer& buf_;
  std::source_location loc_;
  int rank_;
  std::array<category, problem_count> found_{};
  poison_origin origin_;
};

// Raises uninitialized-read for a poisoned scalar (a rank-0 tile used in an `if`), naming its
// poison's origin.
[[noreturn]] void raise_poison_use(const poison_origin& origin, const std::source_location& loc);

// Raises a diagnostic of `kind` with `message` at the kernel's source line.
[[noreturn]] void raise_at(const char* kind, std::string message, const std::source_location& loc);

}  // namespace tl::sim
