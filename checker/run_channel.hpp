// The channel between the sandboxed runner (`tilepuzzles __sandbox-run`, checker/isolate.cpp)
// and the process that supervises it: one socket, descriptor 5 in the runner. The runner shares
// its process with the stub's code, so everything it says may have been written by the stub; the
// supervisor therefore reads it as a claim, never as a verdict (docs/ARCHITECTURE.md, "The
// verdict is the supervisor's"):
//
//   runner -> supervisor  'O' the outputs of a judged run (check_options::judge), then waits for
//                             the judgment;
//                         'R' the check's report, once, at the end;
//                         'T' a traced run (show, check --html), once, instead of 'R'.
//   supervisor -> runner  'J' a judgment: right, or wrong with the reference's outputs.
//
// A message is its type (one byte), its length (8 bytes) and its payload. Both ends run on one
// machine, so numbers travel in its own byte order. The encoders are inline (the runner's side);
// the decoders, which check everything against the puzzle's spec, are in run_channel.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "checker/access_map.hpp"
#include "checker/check.hpp"

namespace tp::channel {

enum : char { outputs_message = 'O', report_message = 'R', trace_message = 'T', judgment_message = 'J' };

inline constexpr std::size_t header_size = 9;

struct writer {
  std::string out;
  void u8(unsigned v) { out.push_back(static_cast<char>(v & 0xff)); }
  void u64(std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i64(long long v) { u64(static_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    out += s;
  }
  template <class T>
  void array(const std::vector<T>& v) {
    u64(v.size());
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
};

// A whole message: its type, its length, its payload.
inline std::string frame(char type, const std::string& payload) {
  writer w;
  w.u8(static_cast<unsigned char>(type));
  w.u64(payload.size());
  return w.out + payload;
}

inline void put_diagnostic(writer& w, const tl::sim::diagnostic& d) {
  w.str(d.kind);
  w.str(d.message);
  for (int p : d.program) w.i64(p);
  w.str(d.buffer);
  w.str(d.source);
  w.str(d.cause);
  w.u64(d.lanes.size());
  for (const auto& lane : d.lanes) {
    w.i64(lane.lane);
    w.u64(lane.coords.size());
    for (int c : lane.coords) w.i64(c);
    w.i64(lane.offset);
    w.str(lane.note);
  }
}

// The values of the output tensors of `tensors` (their dtype's: floats, or int32).
inline void put_outputs(writer& w, const std::vector<tensor>& tensors) {
  std::size_t outputs = 0;
  for (const auto& t : tensors) outputs += t.output ? 1 : 0;
  w.u64(outputs);
  for (const auto& t : tensors) {
    if (!t.output) continue;
    w.u8(static_cast<unsigned>(t.dtype));
    if (holds_ints(t.dtype)) w.array(t.ints);
    else w.array(t.values);
  }
}

// 'O': judged run `number` and its outputs.
inline std::string encode_outputs(std::size_t number, const judged_run& run,
                                  const std::vector<tensor>& tensors) {
  writer w;
  w.u64(number);
  w.u64(run.kernel_index);
  w.u64(run.case_index);
  w.str(run.order);
  w.u8(run.gpu ? 1 : 0);
  put_outputs(w, tensors);
  return frame(outputs_message, w.out);
}

// 'J': right (nothing), or wrong with the reference's tensors (their outputs travel).
inline std::string encode_judgment(const std::optional<std::vector<tensor>>& expected) {
  writer w;
  w.u8(expected ? 0 : 1);
  if (expected) put_outputs(w, *expected);
  return frame(judgment_message, w.out);
}

// 'R': a check's report. What the supervisor knows better (the puzzle, the kernel file, the
// seed, the case's sizes) does not travel.
inline std::string encode_report(const puzzle_report& r) {
  writer w;
  w.u8(static_cast<unsigned>(r.status));
  w.u64(r.diagnostics.size());
  for (const auto& d : r.diagnostics) put_diagnostic(w, d);
  w.i64(r.case_index);
  w.i64(r.kernel_index);
  w.str(r.order);
  w.u64(r.sizes.size());
  for (int s : r.sizes) w.i64(s);
  w.u64(r.counters.size());
  for (const auto& c : r.counters) {
    w.str(c.name);
    for (long long v : {c.loads, c.stores, c.bytes, c.masked, static_cast<long long>(c.max_element_reads),
                        static_cast<long long>(c.max_program_element_reads), c.max_program_loads})
      w.i64(v);
  }
  w.i64(r.runs);
  w.i64(r.bound_runs);
  w.u64(r.max_program_ops);
  w.i64(r.gpu_runs);
  return frame(report_message, w.out);
}

// 'T': a traced run (access_map.hpp), or the diagnostic that took its place.
inline std::string encode_traced(const traced_run* run, const tl::sim::diagnostic* problem) {
  writer w;
  w.u8(run ? 1 : 0);
  if (!run) {
    put_diagnostic(w, *problem);
    return frame(trace_message, w.out);
  }
  w.u8(run->problem ? 1 : 0);
  if (run->problem) put_diagnostic(w, *run->problem);
  w.u64(run->tensors.size());
  for (std::size_t t = 0; t < run->tensors.size(); ++t) {
    const tensor& x = run->tensors[t];
    w.u8(static_cast<unsigned>(x.dtype));
    if (holds_ints(x.dtype)) w.array(x.ints);
    else w.array(x.values);
    std::vector<std::uint8_t> wrong;
    if (t < run->wrong.size())
      for (bool b : run->wrong[t]) wrong.push_back(b ? 1 : 0);
    w.array(wrong);
  }
  w.u64(run->counters.size());
  for (const auto& c : run->counters) {
    w.str(c.name);
    for (long long v : {c.loads, c.stores, c.bytes, c.masked, static_cast<long long>(c.max_element_reads),
                        static_cast<long long>(c.max_program_element_reads), c.max_program_loads})
      w.i64(v);
  }
  w.u64(run->entries.size());
  for (const auto& e : run->entries) {
    w.i64(e.program);
    w.i64(e.buffer);
    w.i64(e.offset);
    w.u8(e.what);
  }
  w.u8(run->truncated ? 1 : 0);
  w.i64(run->programs_run);
  w.str(run->printed);
  return frame(trace_message, w.out);
}

// The supervisor's side (run_channel.cpp). Each decoder checks what it reads against the spec and
// what the supervisor asked for, and says what was wrong in `problem` when it returns nothing.

// The header of the first message in `in`: its type and length, once they have arrived.
struct header {
  char type = 0;
  std::uint64_t length = 0;
};
std::optional<header> peek(const std::string& in);

struct claimed_outputs {
  std::size_t number = 0;
  judged_run run;
  std::vector<tensor> got;  // the case's tensors with the claimed outputs in place
};
// An 'O' payload for judged run `number`, whose case's tensors are `tensors`.
std::optional<claimed_outputs> decode_outputs(const std::string& payload, const puzzle_spec& spec,
                                              std::size_t number, const judged_run& expected_run,
                                              const std::vector<tensor>& tensors,
                                              std::string& problem);

// A 'J' payload: whether the outputs were right; if not, `tensors` (the runner's own, inputs
// filled) with the reference's outputs in place.
std::optional<bool> decode_judgment(const std::string& payload, std::vector<tensor>& tensors);

// An 'R' payload, as a report of `spec`'s stub checked with `options`.
std::optional<puzzle_report> decode_report(const std::string& payload, const puzzle_spec& spec,
                                           const check_options& options, std::string& problem);

// A 'T' payload, for the run `shape` describes (its spec, case, kernel entry, grid, order and
// tensors' names and shapes filled in by the supervisor).
std::optional<std::variant<traced_run, tl::sim::diagnostic>> decode_traced(
    const std::string& payload, const traced_run& shape, std::string& problem);

// Whether `kind` is one of the stable diagnostic kinds (simulator/diagnostic.hpp).
bool known_kind(const std::string& kind);

}  // namespace tp::channel
