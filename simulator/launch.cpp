#include "simulator/launch.hpp"

#include <algorithm>
#include <numeric>

namespace tl::sim {

const char* order_name(order o) {
  switch (o) {
    case order::forward: return "forward";
    case order::reverse: return "reverse";
    case order::shuffle: return "shuffle";
  }
  return "?";
}

namespace {
// splitmix64: a fixed generator, so a shuffled order is the same with every standard library.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

std::vector<int> program_order(long long count, const launch_options& options) {
  std::vector<int> ids(static_cast<std::size_t>(count));
  std::iota(ids.begin(), ids.end(), 0);
  if (options.order == order::reverse) std::reverse(ids.begin(), ids.end());
  if (options.order == order::shuffle) {
    std::uint64_t state = options.seed ^ 0x7469'6c65'7075'7a7aull;
    for (std::size_t i = ids.size(); i > 1; --i)
      std::swap(ids[i - 1], ids[next_random(state) % i]);
  }
  return ids;
}

namespace {
progress_tracker* tracker = nullptr;
}

void set_progress_tracker(progress_tracker* t) { tracker = t; }

void begin_launch(context& ctx, std::array<int, 3> grid, const launch_options& options) {
  ctx.grid = grid;
  ctx.op_budget = options.op_budget;
  ctx.tracker = tracker;
  ctx.trace = options.trace;
  ctx.print_output = options.print_output;
  ctx.lane_by_lane = options.lane_by_lane;
  ctx.dry = options.dry;
  ctx.other = options.other;
}

void enter_program(context& ctx, int linear) {
  ctx.linear_program = linear;
  ctx.program = {linear % ctx.grid[0], (linear / ctx.grid[0]) % ctx.grid[1],
                 linear / (ctx.grid[0] * ctx.grid[1])};
  ctx.ops = 0;
  ctx.last_op = {};
  if (tracker) {
    tracker->program = ctx.program;
    tracker->last_line = 0;
    ++tracker->programs_started;
  }
}

diagnostic crash_diagnostic(const context& ctx, const std::string& what) {
  diagnostic d;
  d.kind = kind::crash;
  d.program = ctx.program;
  std::string after = "before its first tile operation";
  if (ctx.last_op.line() != 0) {
    d.source = source_string(ctx.last_op);
    after = "after its tile operation at " + d.source;
  }
  d.message = "crash: program " + program_string(ctx.program) + " threw an exception " + after +
              ": " + what +
              "\n  Tile operations are checked, so the exception comes from plain C++ in the "
              "kernel between that operation and the next (std::vector::at, a throw, a library "
              "call).";
  return d;
}

void finish_launch(const std::vector<buffer*>& buffers) {
  if (tracker) tracker->program = {-1, -1, -1};
  // The per-element maxima are kept up to date by every load and store (buffer_counters).
  for (buffer* b : buffers) {
    auto& c = b->counters;
    c.load_bytes = c.loads * static_cast<long long>(b->elem_size());
    c.store_bytes = c.stores * static_cast<long long>(b->elem_size());
  }
}

std::optional<diagnostic> unwritten_output(const buffer& output, const std::string& where) {
  const long long unwritten = output.unwritten_count();
  if (unwritten == 0) return std::nullopt;
  diagnostic d;
  d.kind = kind::unwritten_output;
  d.buffer = output.name();
  d.message = std::string(kind::unwritten_output) + ": " + (where.empty() ? "" : where + ": ") +
              std::to_string(unwritten) + " of " + std::to_string(output.count()) +
              " elements of " + d.buffer + " were never written. The first:";
  int shown = 0;
  for (long long i = 0; i < output.count() && shown < 4; ++i)
    if (output.shadow[i].writer == never_written) {
      d.message += " " + d.buffer + output.coords_of(i);
      ++shown;
    }
  d.message += "\n  Does the grid cover every element, and does the mask let the last block's "
               "lanes through?";
  return d;
}

}  // namespace tl::sim
