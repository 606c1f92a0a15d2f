// The passes that explain a failed run, each a run again or a look at the run's counters: what a
// kernel that stores nothing did instead (and whether it is an empty stub), the block sizes that
// cover an unwritten output, where the first NaN or infinity was made, the masked load whose
// `other` decides a wrong result. The check loop (check.cpp) calls them where a case fails.
#include "checker/check.hpp"

#include <cmath>
#include <sstream>

#include "checker/check_passes.hpp"

namespace tp {

using tl::sim::diagnostic;
namespace kind = tl::sim::kind;

// An empty kernel stores nothing and does nothing in any case. One that stores nothing in a small
// case but something in another has a bug (a mask off by one, a loop that skips the tail), not an
// empty body; nor has one that loads and computes but never stores.
activity activity_in_cases(const kernel_entry& kernel, sim_launcher launcher,
                           const check_options& options, const puzzle_spec& spec,
                           const std::function<const case_data&(std::size_t)>& case_at) {
  tl::sim::launch_options launch;
  launch.op_budget = options.op_budget;
  activity seen;
  for (std::size_t c = 0; c < spec.cases.size(); ++c) {
    // The small cases are enough to tell an empty kernel from one that stores somewhere.
    if (spec.cases[c].large || !spec.runs(spec.cases[c].sizes, kernel.blocks)) continue;
    auto tensors = case_at(c).tensors;
    if (options.on_case) {
      const std::string order = tl::sim::order_name(launch.order);
      options.on_case({"case " + numbered_case_label(spec, c, kernel.blocks, order, kernel.dtype),
                       c, &spec.cases[c].sizes, &kernel.blocks, order,
                       static_cast<std::size_t>(&kernel - spec.kernels.data())});
    }
    const sim_outcome run = launcher(request_for(spec, c, kernel, tensors), launch);
    if (run.result.error || total_stores(run) > 0) return {true, true};
    seen.works = seen.works || run.result.ops > 0;
  }
  return seen;
}

namespace {

std::string plural(long long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "loaded 3 elements of x and 3 of y, and stored nothing to z": what a kernel that stores nothing
// did instead, from the run's counters.
std::string what_it_did(const puzzle_spec& spec, const sim_outcome& run) {
  std::vector<std::string> loaded;
  std::string outputs;
  long long masked_stores = 0;
  for (std::size_t t = 0; t < run.buffers.size() && t < spec.tensors.size(); ++t) {
    const auto& c = run.buffers[t].counters;
    if (c.loads > 0)
      loaded.push_back(loaded.empty() ? plural(c.loads, "element", "elements") + " of " +
                                            run.buffers[t].name()
                                      : std::to_string(c.loads) + " of " + run.buffers[t].name());
    if (spec.tensors[t].output) {
      outputs += (outputs.empty() ? "" : " or ") + run.buffers[t].name();
      masked_stores += c.masked_stores;
    }
  }
  std::ostringstream s;
  s << "the kernel ran " << plural(static_cast<long long>(run.result.ops), "tile operation",
                                   "tile operations");
  if (!loaded.empty()) {
    s << ", loaded ";
    for (std::size_t i = 0; i < loaded.size(); ++i)
      s << (i == 0 ? "" : i + 1 == loaded.size() ? " and " : ", ") << loaded[i];
    s << ",";
  }
  s << " and stored nothing to " << outputs << ", in this case or any other.";
  if (masked_stores > 0)
    s << " Its stores had every lane masked off (" << plural(masked_stores, "lane", "lanes")
      << "): look at the store's mask.";
  else
    s << " Does it return before its tl::store, or skip the loop that stores?";
  return s.str();
}

}  // namespace

// `covering(t)`: the block sizes with which the kernel writes every element of output tensor t
// in this case ("B0=1, B1=32"), or "" when none does.
std::optional<diagnostic> check_clean_run(const puzzle_spec& spec, const std::string& kernel_file,
                                          const sim_outcome& run,
                                          const std::vector<tensor>& tensors,
                                          const std::string& where, const activity* nothing_stored,
                                          const std::function<std::string(std::size_t)>& covering) {
  if (nothing_stored && !nothing_stored->works) {
    diagnostic d;
    d.kind = kind::not_solved;
    d.message = "not-solved: the kernel stores nothing yet. Write it in " + kernel_file +
                " (the puzzle is explained in " + spec.doc_file + ").";
    return d;
  }
  if (nothing_stored) {
    diagnostic d;
    d.kind = kind::unwritten_output;
    for (std::size_t t = 0; t < tensors.size(); ++t)
      if (tensors[t].output && d.buffer.empty()) d.buffer = tensors[t].name;
    d.message = "unwritten-output: " + where + ": " + what_it_did(spec, run);
    return d;
  }
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    if (!tensors[t].output) continue;
    const auto& b = run.buffers[t];
    const long long missing = b.unwritten_count();
    if (missing == 0) continue;
    diagnostic d;
    d.kind = kind::unwritten_output;
    d.buffer = b.name();
    std::ostringstream s;
    s << "unwritten-output: " << where << ": " << missing << " of " << b.count()
      << " elements of " << b.name() << " were never written. The first:";
    int shown = 0;
    std::vector<bool> wrong(b.count(), false);
    for (long long i = 0; i < b.count(); ++i) {
      if (b.shadow[i].writer != tl::sim::never_written) continue;
      wrong[i] = true;
      if (shown++ < 4) s << " " << b.name() << b.coords_of(i);
    }
    const std::string covered = covering ? covering(t) : std::string();
    std::string names;
    for (std::size_t i = 0; i < spec.block_names.size(); ++i)
      names += (i == 0 ? "" : i + 1 == spec.block_names.size() ? " or " : ", ") + spec.block_names[i];
    if (!covered.empty())
      s << "\n  With " << covered << " the kernel writes every element of " << b.name()
        << " in this case, and with these block sizes it does not: is " << names
        << " written as a number somewhere (the grid is cdiv of the sizes by the block sizes), "
           "or a loop or a mask made for one block size only?\n";
    else
      s << "\n  Does the grid cover every element, and does the mask let the last block's lanes "
           "through?\n";
    s << wrong_map(tensors[t], wrong);
    d.message = s.str();
    while (d.message.back() == '\n') d.message.pop_back();
    return d;
  }
  return std::nullopt;
}

std::string blocks_covering(const puzzle_spec& spec, std::size_t c, std::size_t k,
                            const std::vector<sim_launcher>& launchers, std::size_t t,
                            const std::function<const case_data&(std::size_t kernel)>& case_of,
                            unsigned long long op_budget) {
  std::string with;
  for (std::size_t other = 0; other < spec.kernels.size(); ++other) {
    if (other == k || !spec.runs(spec.cases[c].sizes, spec.kernels[other].blocks)) continue;
    auto again = case_of(other).tensors;
    tl::sim::launch_options forward;
    forward.op_budget = op_budget;
    const sim_outcome covered =
        launchers[other](request_for(spec, c, spec.kernels[other], again), forward);
    if (covered.result.error || covered.buffers[t].unwritten_count() > 0) continue;
    with += (with.empty() ? "" : " and with ") + blocks_label(spec, spec.kernels[other]);
  }
  return with;
}

void trace_nonfinite(const puzzle_spec& spec, std::size_t c, const kernel_entry& kernel,
                     sim_launcher launcher, const case_data& the_case,
                     const std::vector<tensor>& got, const sim_outcome& run,
                     const tl::sim::launch_options& launch, const std::string& where,
                     diagnostic& d) {
  const auto [t, at] = first_nonfinite(got, the_case.expected);
  auto again = the_case.tensors;
  tl::sim::launch_options traced = launch;
  traced.trace_nonfinite = true;
  traced.lane_by_lane = true;  // the bulk paths do not trace
  traced.trace_program = run.buffers[t].shadow[at].writer;
  const sim_outcome rerun = launcher(request_for(spec, c, kernel, again), traced);
  const bool nan = std::isnan(got[t].values[at]);
  const std::string cause = tl::sim::nonfinite_cause(rerun.result.nonfinite, nan);
  if (cause.empty()) return;
  d = *compare_outputs(spec, got, the_case.expected, where, cause);
  d.cause = tl::sim::nonfinite_summary(rerun.result.nonfinite, nan);
}

// What the masked-off lanes of one load decide, found by running a wrong run again: once with
// a probe that notes the loads whose `other` filled lanes, then once per such load with another
// `other` in their place (the identities of a sum, a maximum, a minimum). A load whose change
// makes the run right is the one to point at.
namespace {

struct other_finding {
  std::string text;    // the report's lines
  std::string source;  // the load's "file:line"
  std::string cause;   // one line, for the JSON's `cause`
};

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::ostringstream s;
  s << v;
  return s.str();
}

std::optional<other_finding> other_decides(const puzzle_spec& spec, std::size_t c,
                                           const kernel_entry& kernel, sim_launcher launcher,
                                           const case_data& data,
                                           const tl::sim::launch_options& launch) {
  auto run_with = [&](tl::sim::other_probe& probe) {
    auto tensors = data.tensors;
    tl::sim::launch_options options = launch;
    options.other = &probe;
    const sim_outcome run = launcher(request_for(spec, c, kernel, tensors), options);
    for (std::size_t t = 0; t < tensors.size(); ++t)
      if (tensors[t].output && run.buffers[t].unwritten_count() > 0) return false;
    return !run.result.error && !compare_outputs(spec, tensors, data.expected, "");
  };
  tl::sim::other_probe watched;
  if (run_with(watched)) return std::nullopt;  // right with the probe on: nothing to explain
  constexpr std::size_t most_sites = 4;
  for (std::size_t i = 0; i < watched.sites.size() && i < most_sites; ++i) {
    const auto& site = watched.sites[i];
    for (double instead : {0.0, -double(INFINITY), double(INFINITY)}) {
      if (!site.several && instead == site.value) continue;
      tl::sim::other_probe replaced;
      replaced.replace_file = site.where.file_name();
      replaced.replace_line = site.where.line();
      replaced.value = instead;
      if (!run_with(replaced)) continue;
      other_finding found;
      found.source = tl::sim::source_string(site.where);
      const std::string held = site.several ? "" : ", " + number_text(site.value) + ",";
      found.text = "  The lanes that the mask of the load at " + found.source +
                   " switches off hold its `other`" + held +
                   " and they decide this result: with " + number_text(instead) +
                   " in their place, this run is right. Masked-off lanes must leave what they "
                   "feed unchanged (0 in a sum, -inf in a maximum, +inf in a minimum): give the "
                   "load that `other`, or keep them out with tl::where.";
      found.cause = "`other`" + (site.several ? std::string() : " = " + number_text(site.value)) +
                    " of the masked load at " + found.source + " decides the result";
      return found;
    }
  }
  return std::nullopt;
}

}  // namespace

void explain_by_other(const puzzle_spec& spec, std::size_t case_index, const kernel_entry& kernel,
                      sim_launcher launcher, const case_data& data,
                      const tl::sim::launch_options& launch, tl::sim::diagnostic& d) {
  const auto found = other_decides(spec, case_index, kernel, launcher, data, launch);
  if (!found) return;
  // Before the map: the finding belongs with the numbers it explains.
  const std::size_t map = d.message.find("\n    map of ");
  d.message.insert(map == std::string::npos ? d.message.size() : map, "\n" + found->text);
  d.source = found->source;
  if (d.cause.empty()) d.cause = found->cause;
}

}  // namespace tp
