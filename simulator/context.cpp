#include "simulator/context.hpp"

#include "simulator/front_hooks.hpp"
#include "tile/expr.hpp"
#include "tile/range.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace tl::sim {

namespace {
thread_local context* current = nullptr;
}

const context* current_context_or_null() { return current; }

context& current_context() {
  if (!current)
    throw std::logic_error(
        "tl: kernel code ran outside a simulator launch; run kernels through tl::sim::run_grid "
        "(the checker does this for you)");
  return *current;
}

void set_current_context(context* ctx) { current = ctx; }

bool lane_by_lane() { return current && current->lane_by_lane; }

std::string program_string(const std::array<int, 3>& program) {
  std::ostringstream s;
  s << "(" << program[0] << ", " << program[1] << ", " << program[2] << ")";
  return s.str();
}

std::string program_string(int linear) {
  const context& ctx = current_context();
  return program_string({linear % ctx.grid[0], (linear / ctx.grid[0]) % ctx.grid[1],
                         linear / (ctx.grid[0] * ctx.grid[1])});
}

std::string coords_string(const int* c, int rank) {
  std::ostringstream s;
  s << "[";
  for (int i = 0; i < rank; ++i) s << (i ? ", " : "") << c[i];
  s << "]";
  return s.str();
}

std::string source_string(const std::source_location& loc) {
  std::string file = loc.file_name();
  if (file.empty()) return "an unknown line";
#ifdef TILEPUZZLES_SOURCE_DIR
  const std::string root = TILEPUZZLES_SOURCE_DIR "/";
  if (file.rfind(root, 0) == 0) file = file.substr(root.size());
#endif
  return file + ":" + std::to_string(loc.line());
}

}  // namespace tl::sim

namespace tl::cpu::backend {

void int32_overflow(long long value, const char* what) {
  sim::raise_at(sim::kind::index_overflow,
                "an integer lane holds " + std::to_string(value) + ", outside int32, and is used by " +
                    what + ". Triton and the GPU compute integer tiles in 32 bits, where this value "
                    "wrapped around; compute it in smaller pieces.",
                sim::current_context().last_op);
}

void int32_step_overflow(const char* symbol, long long a, long long b, long long r,
                         long long lane_index, const int* coords, int rank,
                         const op_location& loc) {
  const sim::context* ctx = sim::current_context_or_null();
  sim::diagnostic d;
  d.kind = sim::kind::index_overflow;
  d.source = sim::source_string(loc.line() != 0 ? loc : ctx ? ctx->last_op : loc);
  if (ctx) d.program = ctx->program;
  sim::lane_report lane;
  lane.lane = lane_index;
  lane.coords.assign(coords, coords + rank);
  lane.offset = r;
  const std::string op = symbol;
  lane.note = (op == "neg" ? "-(" + std::to_string(b) + ")"
                           : std::to_string(a) + " " + op + " " + std::to_string(b)) +
              " = " + std::to_string(r);
  d.lanes.push_back(lane);
  const long long wrapped = static_cast<long long>(static_cast<int>(static_cast<unsigned>(r)));
  std::ostringstream s;
  s << "index-overflow: " << (ctx ? "program " + sim::program_string(ctx->program) + ", " : "")
    << d.source << ": the int32 " << (op == "+"   ? "addition"
                                       : op == "*" ? "multiplication"
                                       : op == "/" ? "division"
                                       : op == "-" ? "subtraction"
                                                   : "negation")
    << " at this line leaves int32 in lane " << sim::coords_string(coords, rank) << ": "
    << lane.note << ", which the GPU and Triton wrap around to " << wrapped
    << ".\n  Integer tiles are int32 on the GPU, every step of an index expression included. "
       "Keep each step small: advance the pointer by the large part (a scalar), or reorder the "
       "arithmetic so that no intermediate grows past 2147483647.";
  d.message = s.str();
  throw sim::kernel_error(std::move(d));
}

void int32_scalar_overflow(long long value, const op_location& loc) {
  sim::raise_at(sim::kind::index_overflow,
                "the integer " + std::to_string(value) +
                    " meets an int32 tile here but does not fit in int32: the GPU would truncate "
                    "it to " + std::to_string(static_cast<int>(static_cast<unsigned>(value))) +
                    ". Split the value, or compute with it as a scalar (a pointer advance).",
                loc.line() != 0 ? loc : sim::current_context().last_op);
}

void float_turned_nonfinite(const char* op, bool binary, double a, double b, double r,
                            const op_location& loc) {
  sim::note_nonfinite(op, binary, a, b, r, loc);
}

void range_step_zero(const op_location& loc) {
  sim::raise_at(sim::kind::crash,
                "tl::range with a step of 0 never ends (Python's range refuses it too). Give the "
                "step of the loop: tl::range(lo, hi, step).",
                loc);
}

void float_to_int32_overflow(double value) {
  std::ostringstream v;
  v << value;
  sim::raise_at(sim::kind::index_overflow,
                "tl::cast converts a float lane holding " + v.str() +
                    " to an integer type, which holds only int32 values (the GPU would saturate "
                    "it, C++ leaves it undefined). Clamp the value first, or keep it a float.",
                sim::current_context().last_op);
}

}  // namespace tl::cpu::backend

namespace tl::sim {

void progress_tracker::note(const std::source_location& loc) {
  last_line = loc.line();
  if (loc.file_name() == last_file_seen) return;
  last_file_seen = loc.file_name();
  std::string file = source_string(loc);
  file = file.substr(0, file.rfind(':'));
  std::snprintf(last_file, sizeof last_file, "%s", file.c_str());
}

void context::tick(const std::source_location& loc) {
  last_op = loc;
  if (tracker) tracker->note(loc);
  count();
}

void context::over_budget() const {
  diagnostic d;
  d.kind = kind::op_budget;
  std::string where = "The program has no load, store, reduction or dot yet";
  if (last_op.line() != 0) {
    d.source = source_string(last_op);
    where = "The last load, store, reduction or dot was at " + d.source;
  }
  d.message = "op-budget: program " + program_string(program) + " ran more than " +
              std::to_string(op_budget) +
              " tile operations without finishing: is there a loop that never ends? " + where +
              ". Check the bound and the step of the loop around it.";
  throw kernel_error(std::move(d));
}

void raise_poison_use(const poison_origin& origin, const std::source_location& loc) {
  diagnostic d;
  d.kind = kind::uninitialized_read;
  d.source = source_string(loc);
  d.cause = origin_string(origin);
  const context* ctx = current;
  d.message = std::string(kind::uninitialized_read) + ": " +
              (ctx ? "program " + program_string(ctx->program) + ", " : "") + d.source +
              ": a scalar used by the kernel (in an `if`, a loop bound, a conversion) is "
              "poison.\n  " + poison_cause(origin);
  throw kernel_error(std::move(d));
}

void raise_at(const char* k, std::string message, const std::source_location& loc) {
  diagnostic d;
  d.kind = k;
  d.source = source_string(loc);
  const context* ctx = current;
  d.message = std::string(k) + ": " + (ctx ? "program " + program_string(ctx->program) + ", " : "") +
              d.source + ": " + message;
  throw kernel_error(std::move(d));
}

void access_check::raise() const {
  int first = 0;
  while (found_[first].count == 0) ++first;
  const auto& cat = found_[first];
  const context& ctx = current_context();

  struct wording {
    const char* kind;
    const char* what;
    const char* hint;
  };
  static const wording words[problem_count] = {
      {kind::uninitialized_read, "with a poison mask",
       "The mask was computed from poison: lanes a masked load switched off with no `other`. "
       "Give that load an `other` value, or build the mask from indices."},
      {kind::uninitialized_read, "with poison offsets",
       "The offsets were computed from poison: lanes a masked load switched off with no `other`."},
      {kind::index_overflow, "with offsets that overflow int32",
       "Offsets are 32-bit on the GPU, as in Triton. Advance the pointer by the large part "
       "(a scalar) and keep the tile of offsets small."},
      {kind::out_of_bounds, "outside the buffer",
       "Mask the lanes that fall outside: pass a mask such as `offsets < N` to this load/store."},
      {kind::poison_store, "poison values",
       "Poison comes from lanes a masked load switched off with no `other`, or from a tl::tile "
       "declared without a value. Give the load an `other`, initialize the tile, or do not store "
       "those lanes."},
      {kind::uninitialized_read, "elements nothing has written yet",
       "Outputs start poisoned, never zero: read an output only after this program wrote it."},
      {kind::race_write_write, "with two lanes on one element",
       "On the GPU two lanes of one store are two threads writing one element at once: which "
       "value lands is undefined. Each active lane of a store needs an element of its own: "
       "look for an index used on the wrong axis, a row stride left out (rows + cols where "
       "rows * N + cols belongs), or a stride of 0."},
      {kind::race_write_write, "elements another program already wrote",
       "Two programs of one launch wrote the same element: each output element should belong "
       "to exactly one program. Check how the offsets use tl::program_id."},
      {kind::race_read_write, "elements another program touched in this launch",
       "Programs of one launch run in any order, so one program may not read what another "
       "writes (or write what another read)."},
      {kind::race_write_write, "elements that a plain store and an atomic of two programs both write",
       "An atomic and a plain tl::store of another program met on one element in this launch: "
       "atomics are ordered only among themselves, so the store may land before or after them "
       "on the GPU. Update the element with atomics only (tl::atomic_xchg in place of the "
       "store), or leave it to one program."},
      {kind::race_read_write, "elements that a plain load and an atomic of two programs both touch",
       "An atomic and a plain tl::load of another program met on one element in this launch: "
       "programs run in any order, so the load may see the element before or after the "
       "atomics. Use the value the atomic returns (the element before it), or read the "
       "result in a later launch."},
  };
  const wording& w = words[first];

  diagnostic d;
  d.kind = w.kind;
  d.source = source_string(loc_);
  d.buffer = buf_.name();
  d.program = ctx.program;
  d.lanes = cat.lanes;
  if (first == poison_mask || first == poison_offset || first == poison_value)
    d.cause = origin_string(origin_);
  std::ostringstream s;
  if (first == duplicate) {
    // "two lanes of this store write z[1, 2]": the element, then both lanes.
    const long long off = cat.lanes.front().offset;
    s << w.kind << ": program " << program_string(ctx.program) << ": two lanes of this store "
      << "write " << buf_.name()
      << (buf_.shape().size() > 1 ? buf_.coords_of(off) : "[" + std::to_string(off) + "]")
      << " at " << d.source << "\n";
  } else {
    s << w.kind << ": program " << program_string(ctx.program) << " " << verb_ << " "
      << buf_.name() << " " << w.what << " at " << d.source << "\n";
  }
  s << "  " << buf_.describe() << "\n";
  s << "  " << cat.count << (cat.count == 1 ? " lane" : " lanes") << ", the first:\n";
  for (const auto& lane : cat.lanes) {
    s << "    lane " << lane.lane << " at " << coords_string(lane.coords.data(), rank_);
    if (first != poison_mask && first != poison_offset) {
      s << ": offset " << lane.offset;
      if (lane.offset >= 0 && lane.offset < buf_.count() && buf_.shape().size() > 1)
        s << " = " << buf_.name() << buf_.coords_of(lane.offset);
    }
    if (!lane.note.empty()) s << " (" << lane.note << ")";
    s << "\n";
  }
  if (cat.count > static_cast<long long>(cat.lanes.size()))
    s << "    ... and " << cat.count - static_cast<long long>(cat.lanes.size()) << " more\n";
  if (origin_.what && (first == poison_mask || first == poison_offset || first == poison_value))
    s << "  " << (first == poison_mask     ? "The mask was computed from poison. "
                  : first == poison_offset ? "The offsets were computed from poison. "
                                           : "")
      << poison_cause(origin_);
  else if (first == outside && masked_)
    s << "  This " << (verb_[0] == 's' ? "store" : verb_[0] == 'a' ? "atomic" : "load")
      << " has a mask, and it lets these lanes through. Is its bound right (`offsets < N`, not "
         "`<=`)? Is it built from the same offsets as the pointers, on every axis they use?";
  else
    s << "  " << w.hint;
  d.message = s.str();
  throw kernel_error(std::move(d));
}

}  // namespace tl::sim
