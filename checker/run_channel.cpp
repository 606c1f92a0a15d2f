// The supervisor's side of the runner's channel (checker/run_channel.hpp): every message is
// read as a claim of code that may be the stub's, so every count, index and string is checked
// before anything is made of it.
#include "checker/run_channel.hpp"

#include <algorithm>
#include <limits>

namespace tp::channel {

namespace {

// Bounds on what a message may hold: far above what any check says, far below what would
// hurt the supervisor.
constexpr std::uint64_t max_string = 4u << 20;
constexpr std::uint64_t max_diagnostics = 16;
constexpr std::uint64_t max_lanes = 4096;
constexpr std::uint64_t max_coords = 8;

struct reader {
  const std::string& in;
  std::size_t at = 0;
  bool ok = true;

  bool take(void* to, std::size_t n) {
    if (!ok || in.size() - at < n) return ok = false;
    std::memcpy(to, in.data() + at, n);
    at += n;
    return true;
  }
  unsigned u8() {
    unsigned char v = 0;
    take(&v, 1);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  long long i64() { return static_cast<long long>(u64()); }
  // An integer in [low, high]; anything else spoils the message.
  long long bounded(long long low, long long high) {
    const long long v = i64();
    if (v < low || v > high) ok = false;
    return ok ? v : low;
  }
  std::string str(std::uint64_t most = max_string) {
    const std::uint64_t n = u64();
    if (!ok || n > most || n > in.size() - at) {
      ok = false;
      return {};
    }
    std::string s = in.substr(at, n);
    at += n;
    return s;
  }
  // An array of exactly `count` elements of T.
  template <class T>
  bool array(std::vector<T>& v, std::uint64_t count) {
    const std::uint64_t n = u64();
    if (!ok || n != count || n > (in.size() - at) / sizeof(T)) return ok = false;
    v.resize(n);
    if (n) std::memcpy(v.data(), in.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return true;
  }
  bool done() const { return ok && at == in.size(); }
};

std::optional<tl::sim::diagnostic> get_diagnostic(reader& r) {
  tl::sim::diagnostic d;
  d.kind = r.str(64);
  d.message = r.str();
  for (int& p : d.program) p = static_cast<int>(r.bounded(-1, std::numeric_limits<int>::max()));
  d.buffer = r.str(4096);
  d.source = r.str(4096);
  d.cause = r.str();
  const std::uint64_t lanes = r.u64();
  if (!r.ok || lanes > max_lanes || !known_kind(d.kind)) return std::nullopt;
  for (std::uint64_t i = 0; i < lanes && r.ok; ++i) {
    tl::sim::lane_report lane;
    lane.lane = r.i64();
    const std::uint64_t coords = r.u64();
    if (coords > max_coords) return std::nullopt;
    for (std::uint64_t c = 0; c < coords && r.ok; ++c)
      lane.coords.push_back(static_cast<int>(r.bounded(std::numeric_limits<int>::min(),
                                                       std::numeric_limits<int>::max())));
    lane.offset = r.i64();
    lane.note = r.str(4096);
    d.lanes.push_back(std::move(lane));
  }
  if (!r.ok) return std::nullopt;
  return d;
}

// Output values for the output tensors of `tensors`, in place.
bool get_outputs(reader& r, std::vector<tensor>& tensors) {
  std::uint64_t outputs = 0;
  for (const auto& t : tensors) outputs += t.output ? 1 : 0;
  if (r.u64() != outputs) return false;
  for (auto& t : tensors) {
    if (!t.output) continue;
    if (r.u8() != static_cast<unsigned>(t.dtype)) return false;
    const auto count = static_cast<std::uint64_t>(t.count());
    if (holds_ints(t.dtype) ? !r.array(t.ints, count) : !r.array(t.values, count)) return false;
  }
  return r.ok;
}

bool known_tensor(const puzzle_spec& spec, const std::string& name) {
  return std::any_of(spec.tensors.begin(), spec.tensors.end(),
                     [&](const auto& t) { return t.name == name; });
}

bool get_counters(reader& r, const puzzle_spec& spec, std::vector<tensor_counters>& out) {
  const std::uint64_t n = r.u64();
  if (!r.ok || n > spec.tensors.size()) return false;
  for (std::uint64_t i = 0; i < n && r.ok; ++i) {
    tensor_counters c;
    c.name = r.str(256);
    c.loads = r.i64();
    c.stores = r.i64();
    c.bytes = r.i64();
    c.masked = r.i64();
    const long long most = std::numeric_limits<int>::max();
    c.max_element_reads = static_cast<int>(r.bounded(0, most));
    c.max_program_element_reads = static_cast<int>(r.bounded(0, most));
    c.max_program_loads = r.i64();
    if (!known_tensor(spec, c.name)) return false;
    out.push_back(std::move(c));
  }
  return r.ok;
}

bool known_order(const std::string& order) {
  return order.empty() || order == "forward" || order == "reverse" || order == "shuffle";
}

}  // namespace

bool known_kind(const std::string& kind) {
  namespace k = tl::sim::kind;
  for (const char* known :
       {k::not_solved, k::wrong_result, k::out_of_bounds, k::poison_store, k::uninitialized_read,
        k::unwritten_output, k::race_write_write, k::race_read_write, k::index_overflow,
        k::op_budget, k::efficiency_budget, k::nan_inf, k::crash, k::compile_error, k::sandbox})
    if (kind == known) return true;
  return false;
}

std::optional<header> peek(const std::string& in) {
  if (in.size() < header_size) return std::nullopt;
  header h;
  h.type = in[0];
  std::memcpy(&h.length, in.data() + 1, sizeof h.length);
  return h;
}

std::optional<claimed_outputs> decode_outputs(const std::string& payload, const puzzle_spec& spec,
                                              std::size_t number, const judged_run& expected_run,
                                              const std::vector<tensor>& tensors,
                                              std::string& problem) {
  (void)spec;
  reader r{payload};
  claimed_outputs c;
  c.number = r.u64();
  c.run.kernel_index = r.u64();
  c.run.case_index = r.u64();
  c.run.order = r.str(16);
  c.run.gpu = r.u8() != 0;
  if (!r.ok) {
    problem = "a run's outputs that end too soon";
    return std::nullopt;
  }
  if (c.number != number || !(c.run == expected_run)) {
    problem = "the outputs of another run than the one the check was at (run " +
              std::to_string(c.number) + " where " + std::to_string(number) + " was next)";
    return std::nullopt;
  }
  c.got = tensors;
  if (!get_outputs(r, c.got) || !r.done()) {
    problem = "outputs whose number, types or sizes are not the puzzle's";
    return std::nullopt;
  }
  return c;
}

std::optional<bool> decode_judgment(const std::string& payload, std::vector<tensor>& tensors) {
  reader r{payload};
  const unsigned right = r.u8();
  if (!r.ok || right > 1) return std::nullopt;
  if (right == 1) return r.done() ? std::optional<bool>(true) : std::nullopt;
  if (!get_outputs(r, tensors) || !r.done()) return std::nullopt;
  return false;
}

std::optional<puzzle_report> decode_report(const std::string& payload, const puzzle_spec& spec,
                                           const check_options& options, std::string& problem) {
  reader r{payload};
  puzzle_report report;
  report.spec = &spec;
  report.which = options.which;
  report.kernel_file = shown_kernel_file(spec, options.which, options.modules);
  report.seed = options.seed;
  const unsigned status = r.u8();
  const std::uint64_t count = r.u64();
  if (!r.ok || status > static_cast<unsigned>(status::failed) || count > max_diagnostics) {
    problem = "a report with an unknown status or too many diagnostics";
    return std::nullopt;
  }
  report.status = static_cast<tp::status>(status);
  for (std::uint64_t i = 0; i < count; ++i) {
    auto d = get_diagnostic(r);
    if (!d) {
      problem = "a diagnostic that is not one (its kind is not among the stable kinds, or it ends "
                "too soon)";
      return std::nullopt;
    }
    report.diagnostics.push_back(std::move(*d));
  }
  const int cases = static_cast<int>(spec.cases.size());
  const int kernels = static_cast<int>(spec.kernels.size());
  report.case_index = static_cast<int>(r.bounded(-1, cases - 1));
  report.kernel_index = static_cast<int>(r.bounded(-1, kernels - 1));
  report.order = r.str(16);
  std::vector<int> sizes;
  const std::uint64_t size_count = r.u64();
  if (!r.ok || size_count > 16) {
    problem = "a report whose case is not one of the puzzle's";
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < size_count; ++i)
    sizes.push_back(static_cast<int>(r.bounded(std::numeric_limits<int>::min(),
                                               std::numeric_limits<int>::max())));
  if (!r.ok || !known_order(report.order) ||
      (report.case_index >= 0 && report.kernel_index < 0)) {
    problem = "a report whose case is not one of the puzzle's";
    return std::nullopt;
  }
  // The case's sizes, block sizes and what it holds: the spec's, by the indices.
  if (report.kernel_index >= 0) {
    const kernel_entry& k = spec.kernels[static_cast<std::size_t>(report.kernel_index)];
    report.blocks = k.blocks;
    report.dtype = k.dtype;
    if (report.case_index >= 0) {
      const auto& c = spec.cases[static_cast<std::size_t>(report.case_index)];
      report.sizes = c.sizes;
      report.case_about = c.about;
    } else {
      // A size bound: one of the spec's.
      if (std::find(spec.size_bounds.begin(), spec.size_bounds.end(), sizes) ==
              spec.size_bounds.end() ||
          !report.order.empty()) {
        problem = "a report about sizes that are not one of the puzzle's size bounds";
        return std::nullopt;
      }
      report.sizes = sizes;
      report.case_about = size_bounds_about(spec);
    }
  } else if (!report.order.empty()) {
    problem = "a report whose case is not one of the puzzle's";
    return std::nullopt;
  }
  if (!get_counters(r, spec, report.counters)) {
    problem = "counters of tensors the puzzle does not have";
    return std::nullopt;
  }
  report.runs = static_cast<int>(r.bounded(0, 1 << 24));
  report.bound_runs = static_cast<int>(r.bounded(0, 1 << 24));
  report.max_program_ops = r.u64();
  report.gpu_runs = static_cast<int>(r.bounded(0, 1 << 24));
  if (!r.done()) {
    problem = "a report that ends too soon, or goes on after its end";
    return std::nullopt;
  }
  // A status and its diagnostics agree: solved has none, not solved says so first.
  const bool agree =
      report.status == status::solved
          ? report.diagnostics.empty()
          : !report.diagnostics.empty() &&
                ((report.diagnostics.front().kind == tl::sim::kind::not_solved) ==
                 (report.status == status::not_solved));
  if (!agree) {
    problem = "a report whose status and diagnostics disagree";
    return std::nullopt;
  }
  return report;
}

std::optional<std::variant<traced_run, tl::sim::diagnostic>> decode_traced(
    const std::string& payload, const traced_run& shape, std::string& problem) {
  reader r{payload};
  const unsigned ran = r.u8();
  if (!r.ok || ran > 1) {
    problem = "a traced run that is not one";
    return std::nullopt;
  }
  if (ran == 0) {
    auto d = get_diagnostic(r);
    if (!d || !r.done()) {
      problem = "a diagnostic that is not one";
      return std::nullopt;
    }
    return std::variant<traced_run, tl::sim::diagnostic>(std::move(*d));
  }
  traced_run run = shape;
  const unsigned has_problem = r.u8();
  if (has_problem == 1) {
    auto d = get_diagnostic(r);
    if (!d) {
      problem = "a diagnostic that is not one";
      return std::nullopt;
    }
    run.problem = std::move(*d);
  } else if (has_problem != 0) {
    r.ok = false;
  }
  if (r.u64() != run.tensors.size()) r.ok = false;
  run.wrong.assign(run.tensors.size(), {});
  for (std::size_t t = 0; t < run.tensors.size() && r.ok; ++t) {
    tensor& x = run.tensors[t];
    const auto n = static_cast<std::uint64_t>(x.count());
    if (r.u8() != static_cast<unsigned>(x.dtype)) r.ok = false;
    if (holds_ints(x.dtype)) r.array(x.ints, n);
    else r.array(x.values, n);
    std::vector<std::uint8_t> wrong;
    r.array(wrong, x.output ? n : 0);
    for (std::uint8_t w : wrong) run.wrong[t].push_back(w != 0);
  }
  if (!r.ok) {
    problem = "tensors whose number, types or sizes are not the run's";
    return std::nullopt;
  }
  if (!get_counters(r, *shape.spec, run.counters)) {
    problem = "counters of tensors the puzzle does not have";
    return std::nullopt;
  }
  const std::uint64_t entries = r.u64();
  if (!r.ok || entries > tl::sim::access_trace::max_entries + 4096 ||
      entries > (payload.size() - r.at) / 25) {
    problem = "more trace entries than a trace holds";
    return std::nullopt;
  }
  const long long programs = run.program_count();
  run.entries.reserve(entries);
  for (std::uint64_t i = 0; i < entries && r.ok; ++i) {
    tl::sim::access_trace::entry e;
    e.program = static_cast<int>(r.bounded(0, programs - 1));
    e.buffer = static_cast<int>(r.bounded(0, static_cast<long long>(run.tensors.size()) - 1));
    e.offset = r.i64();
    e.what = static_cast<std::uint8_t>(r.u8());
    run.entries.push_back(e);
  }
  run.truncated = r.u8() != 0;
  run.programs_run = r.bounded(0, programs);
  run.printed = r.str();
  if (!r.done()) {
    problem = "a trace whose entries are not the run's programs and buffers, or that ends too soon";
    return std::nullopt;
  }
  return std::variant<traced_run, tl::sim::diagnostic>(std::move(run));
}

}  // namespace tp::channel
