// The grid runner: runs a launch one program at a time, in a chosen order, with every check on.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/diagnostic.hpp"
#include "simulator/trace.hpp"

namespace tl::sim {

enum class order { forward, reverse, shuffle };

const char* order_name(order o);

struct launch_options {
  sim::order order = order::forward;
  std::uint64_t seed = 0;                     // for order::shuffle
  unsigned long long op_budget = 1ull << 20;  // tile operations one program may run
  // Record the first operations that make a NaN or an infinity (launch_result::nonfinite): the
  // checker reruns a case that ended in nan-inf with this on, to name the cause.
  bool trace_nonfinite = false;
  int trace_program = -1;  // only in this program (linear id), -1 for every program
  access_trace* trace = nullptr;  // when set, records every lane of every load and store
  std::string* print_output = nullptr;  // when set, collects what tl::print prints
  // Run every operation lane by lane, the reference the bulk path must agree with bit for bit
  // (tests/simulator_bulk.cpp). Many times slower; diagnostics and results are the same.
  bool lane_by_lane = false;
  // A dry launch: the buffers have no data (buffer::without_data_t). Every load and store checks
  // its masks, its offsets against the buffer's shape and every integer step of its index
  // expressions, as always; loads give zeros, stores write nothing, `dot` computes nothing. The
  // checker runs a kernel so at the sizes its puzzle allows but no case could allocate
  // (checker/check.cpp, "size bounds").
  bool dry = false;
  // When not empty, only these programs run (linear ids), in this order, instead of the grid's.
  std::vector<int> programs;
  // When set, the masked-off lanes of floating-point loads with `other` go through this probe
  // (simulator/origin.hpp): the checker's rerun of a wrong result.
  other_probe* other = nullptr;
};

struct launch_result {
  std::optional<diagnostic> error;  // the first problem found; the launch stops there
  long long programs_run = 0;
  unsigned long long ops = 0;       // tile operations over all programs
  unsigned long long max_program_ops = 0;  // the most one program ran
  nonfinite_trace nonfinite;        // with launch_options::trace_nonfinite
};

// The order in which the programs of a grid run: same options, same order, on every machine.
std::vector<int> program_order(long long count, const launch_options& options);

// Runs `program()` once for every program of `grid`. `buffers` are the launch's checked buffers,
// whose per-program counters are folded after each program.
template <class Program>
launch_result run_grid(std::array<int, 3> grid, const launch_options& options,
                       const std::vector<buffer*>& buffers, Program&& program);

// The `unwritten-output` diagnostic of an output buffer whose elements were not all written by
// a launch, or none where every element was: how many, the first few, and what to look at.
// `where` (the checker's case and block sizes) leads the message when not empty.
std::optional<diagnostic> unwritten_output(const buffer& output, const std::string& where = "");

// Runs a kernel struct once per program of `grid`: `Kernel{}` called with the tuple that
// `arguments()` returns, with the kernel's num_warps in the program's context. The one place that
// knows how a kernel is launched in the simulator, for the checker's launcher (checker/
// sim_launch.hpp) and users' own (tl::simulate, simulator/simulate.hpp). `arguments` runs inside
// each program, so that whatever it throws is that program's diagnostic.
template <class Kernel, class Arguments>
launch_result run_kernel(std::array<int, 3> grid, const launch_options& options,
                         const std::vector<buffer*>& buffers, Arguments&& arguments) {
  const Kernel kernel{};
  return run_grid(grid, options, buffers, [&] {
    current_context().num_warps = Kernel::num_warps;
    std::apply(kernel, arguments());
  });
}

// While set, every launch on this thread writes where it is into `tracker` (see progress_tracker
// in simulator/context.hpp): a supervisor that survives a crash or a hang of the simulated kernel
// can then say which program it was and the line of its last tile operation.
void set_progress_tracker(progress_tracker* tracker);

// Implementation -----------------------------------------------------------------------------

void begin_launch(context& ctx, std::array<int, 3> grid, const launch_options& options);
void enter_program(context& ctx, int linear);
diagnostic crash_diagnostic(const context& ctx, const std::string& what);
void finish_launch(const std::vector<buffer*>& buffers);

template <class Program>
launch_result run_grid(std::array<int, 3> grid, const launch_options& options,
                       const std::vector<buffer*>& buffers, Program&& program) {
  launch_result result;
  context ctx;
  begin_launch(ctx, grid, options);
  if (options.trace_nonfinite) {
    result.nonfinite.only_program = options.trace_program;
    ctx.nonfinite = &result.nonfinite;
  }
  if (options.trace) options.trace->begin_launch(grid, buffers);
  set_current_context(&ctx);
  const long long count = 1LL * grid[0] * grid[1] * grid[2];
  for (int linear : options.programs.empty() ? program_order(count, options) : options.programs) {
    enter_program(ctx, linear);
    try {
      program();
    } catch (kernel_error& e) {
      e.diag.program = ctx.program;
      result.error = std::move(e.diag);
    } catch (const std::exception& e) {
      result.error = crash_diagnostic(ctx, e.what());
    } catch (...) {
      // `throw 42;` too: left to escape, it would also leave a dangling current context.
      result.error = crash_diagnostic(ctx, "an exception that is not a std::exception");
    }
    for (buffer* b : buffers) b->end_program();
    result.ops += ctx.ops;
    result.max_program_ops = std::max(result.max_program_ops, ctx.ops);
    ++result.programs_run;
    if (result.error) break;
  }
  set_current_context(nullptr);
  finish_launch(buffers);
  return result;
}

}  // namespace tl::sim
