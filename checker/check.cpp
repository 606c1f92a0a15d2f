#include "checker/check.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <cmath>
#include <sstream>
#include <variant>

#include <Eigen/Core>

#include "checker/gpu.hpp"

namespace tp {

using tl::sim::diagnostic;
namespace kind = tl::sim::kind;

const char* impl_name(impl which) { return which == impl::stub ? "stub" : "solution"; }

const tl::sim::buffer& run_facts::buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name() == name) return b;
  throw std::logic_error("no buffer named " + name);
}

std::string case_label(const puzzle_spec& spec, const std::vector<int>& sizes,
                       const std::vector<int>& blocks, const std::string& order, dtype element) {
  std::ostringstream s;
  for (std::size_t i = 0; i < sizes.size() && i < spec.size_names.size(); ++i)
    s << (i ? ", " : "") << spec.size_names[i] << "=" << sizes[i];
  for (std::size_t i = 0; i < blocks.size() && i < spec.block_names.size(); ++i)
    s << ", " << spec.block_names[i] << "=" << blocks[i];
  if (element != dtype::float32) s << ", " << dtype_name(element);
  if (!order.empty()) s << ", order " << order;
  return s.str();
}

std::string numbered_case_label(const puzzle_spec& spec, std::size_t case_index,
                                const std::vector<int>& blocks, const std::string& order,
                                dtype element) {
  return std::to_string(case_index + 1) + " of " + std::to_string(spec.cases.size()) + ": " +
         case_label(spec, spec.cases[case_index].sizes, blocks, order, element);
}

namespace {
// "B0=1, B1=32" (", float16" after them for a kernel of another dtype than float32).
std::string blocks_label(const puzzle_spec& spec, const kernel_entry& kernel) {
  const std::string label = case_label(spec, {}, kernel.blocks, "", kernel.dtype);
  return label.rfind(", ", 0) == 0 ? label.substr(2) : label;
}

// "tilepuzzles show 8 --case 3 --blocks B0=4,B1=64 --order reverse", with the options that
// make `show` run the same kernel (--impl, --puzzles) as the check did.
std::string show_command(const puzzle_spec& spec, const run_id& run, const check_options& options) {
  std::string command = "tilepuzzles show " + std::to_string(spec.number) + " " +
                        replay_arguments(spec, run);
  if (options.which == impl::solution) command += " --impl solution";
  if (!options.modules.puzzles_dir.empty()) command += " --puzzles " + options.modules.puzzles_dir;
  return command;
}
}  // namespace

std::string puzzle_report::case_label() const {
  if (!spec) return {};
  if (case_index >= 0 && case_index < static_cast<int>(spec->cases.size()))
    return numbered_case_label(*spec, static_cast<std::size_t>(case_index), blocks, order, dtype);
  return tp::case_label(*spec, sizes, blocks, order, dtype);
}

std::optional<run_id> failed_run(const puzzle_report& report) {
  if (report.status != status::failed || !report.spec || report.diagnostics.empty() ||
      report.case_index < 0 || report.kernel_index < 0 || report.order.empty())
    return std::nullopt;
  const std::string& kind = report.diagnostics.front().kind;
  if (kind == kind::compile_error || kind == kind::not_solved) return std::nullopt;
  return run_id{report.case_index, report.kernel_index, report.order, report.seed};
}

std::string blocks_argument(const puzzle_spec& spec, std::size_t kernel_index) {
  const kernel_entry& kernel = spec.kernels[kernel_index];
  std::string text;
  for (std::size_t i = 0; i < kernel.blocks.size() && i < spec.block_names.size(); ++i)
    text += (i ? "," : "") + spec.block_names[i] + "=" + std::to_string(kernel.blocks[i]);
  const auto same_blocks = std::count_if(spec.kernels.begin(), spec.kernels.end(),
                                         [&](const kernel_entry& k) { return k.blocks == kernel.blocks; });
  if (same_blocks > 1) text += std::string(",") + dtype_name(kernel.dtype);
  return text;
}

std::string replay_arguments(const puzzle_spec& spec, const run_id& run) {
  std::string text = "--case " + std::to_string(run.case_index + 1) + " --blocks " +
                     blocks_argument(spec, static_cast<std::size_t>(run.kernel_index));
  if (!run.order.empty() && run.order != "forward") text += " --order " + run.order;
  if (run.seed != 0) text += " --seed " + std::to_string(run.seed);
  return text;
}

std::optional<std::size_t> parse_blocks(const puzzle_spec& spec, const std::string& text,
                                        std::string& error) {
  std::string choices;
  for (std::size_t k = 0; k < spec.kernels.size(); ++k)
    choices += (k ? ", " : "") + blocks_argument(spec, k);
  error = "--blocks " + text + ": puzzle " + std::to_string(spec.number) + " (" + spec.id +
          ") is checked with " + choices + "; name one of them";
  std::vector<int> values(spec.block_names.size(), -1);
  std::optional<dtype> element;
  std::size_t position = 0;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) return std::nullopt;
    bool is_dtype = false;
    for (dtype d : {dtype::float32, dtype::float16, dtype::bfloat16})
      if (item == dtype_name(d)) element = d, is_dtype = true;
    if (is_dtype) continue;
    std::size_t axis = position;
    std::string number = item;
    if (const std::size_t eq = item.find('='); eq != std::string::npos) {
      const std::string name = item.substr(0, eq);
      const auto named = std::find(spec.block_names.begin(), spec.block_names.end(), name);
      if (named == spec.block_names.end()) return std::nullopt;
      axis = static_cast<std::size_t>(named - spec.block_names.begin());
      number = item.substr(eq + 1);
    }
    if (axis >= values.size() || number.empty() || number.size() > 6 ||
        number.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    values[axis] = std::stoi(number);
    position = axis + 1;
  }
  if (std::count(values.begin(), values.end(), -1) > 0) return std::nullopt;
  std::optional<std::size_t> found;
  for (std::size_t k = 0; k < spec.kernels.size(); ++k) {
    if (spec.kernels[k].blocks != values) continue;
    if (element && spec.kernels[k].dtype != *element) continue;
    if (found) {  // the same block sizes in two dtypes: the dtype must say which
      error = "--blocks " + text + ": puzzle " + std::to_string(spec.number) +
              " has these block sizes in more than one dtype; add it: " + choices;
      return std::nullopt;
    }
    found = k;
  }
  if (found) error.clear();
  return found;
}

namespace {
// A float tensor's values rounded to its dtype, so that the reference sees what the kernel sees.
void round_to_dtype(tensor& x) {
  for (float& v : x.values) {
    if (x.dtype == dtype::float16) v = static_cast<float>(Eigen::half(v));
    else if (x.dtype == dtype::bfloat16) v = static_cast<float>(Eigen::bfloat16(v));
  }
}
}  // namespace

case_data make_case(const puzzle_spec& spec, const test_case& the_case, std::uint64_t seed,
                    std::size_t case_index, dtype kernel_dtype) {
  case_data data;
  for (std::size_t t = 0; t < spec.tensors.size(); ++t) {
    const auto& ts = spec.tensors[t];
    tensor x;
    x.name = ts.name;
    x.output = ts.output;
    x.shape = ts.shape(the_case.sizes);
    x.dtype = ts.dtype.value_or(kernel_dtype);
    const auto count = static_cast<std::size_t>(x.count());
    rng random(mix_seed(seed, case_index, t));
    if (x.dtype == dtype::int32) {
      x.ints.assign(count, 0);
      if (!ts.output && ts.fill_ints) ts.fill_ints(x.ints, random);
    } else {
      x.values.assign(count, 0.0f);
      if (ts.output) {
      } else if (const case_fill* fill = the_case.fill_for(ts.name)) {
        (*fill)(x.values, x.shape, random);
      } else if (ts.fill) {
        ts.fill(x.values, random);
      }
      round_to_dtype(x);
    }
    data.tensors.push_back(std::move(x));
  }
  data.expected = data.tensors;
  spec.reference(the_case.sizes, data.expected);
  return data;
}

namespace {

std::string coords_of(const tensor& t, long long offset) {
  std::vector<long long> c(t.shape.size());
  for (std::size_t a = t.shape.size(); a-- > 0;) {
    c[a] = offset % t.shape[a];
    offset /= t.shape[a];
  }
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < c.size(); ++i) s << (i ? ", " : "") << c[i];
  s << "]";
  return s.str();
}

// A small picture of where the wrong elements are: '#' wrong, '.' right.
std::string wrong_map(const tensor& t, const std::vector<bool>& wrong) {
  const long long cols_total = t.shape.empty() ? 1 : t.shape.back();
  const long long rows_total = t.count() / std::max(1LL, cols_total);
  const long long rows = std::min(rows_total, 16LL), cols = std::min(cols_total, 64LL);
  std::ostringstream s;
  s << "    map of " << t.name << " (" << rows_total << " x " << cols_total << " elements as "
    << rows << " x " << cols << " cells, # = wrong):\n";
  for (long long r = 0; r < rows; ++r) {
    s << "      ";
    const long long r0 = r * rows_total / rows, r1 = (r + 1) * rows_total / rows;
    for (long long c = 0; c < cols; ++c) {
      const long long c0 = c * cols_total / cols, c1 = (c + 1) * cols_total / cols;
      bool any = false;
      for (long long i = r0; i < r1 && !any; ++i)
        for (long long j = c0; j < c1 && !any; ++j) any = wrong[i * cols_total + j];
      s << (any ? '#' : '.');
    }
    s << "\n";
  }
  return s.str();
}

}  // namespace

std::pair<int, long long> first_nonfinite(const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (!got[t].output || got[t].dtype == dtype::int32) continue;
    for (long long i = 0; i < got[t].count(); ++i)
      if (!std::isfinite(got[t].values[i]) && std::isfinite(expected[t].values[i]))
        return {static_cast<int>(t), i};
  }
  return {-1, -1};
}

std::optional<diagnostic> compare_outputs(const puzzle_spec& spec, const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected,
                                          const std::string& where,
                                          const std::string& nonfinite_cause) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (!got[t].output) continue;
    const tensor& y = got[t];
    const tensor& r = expected[t];
    const long long n = y.count();
    double rtol = spec.rtol, atol = spec.atol;
    for (const auto& tol : spec.tolerances)
      if (tol.dtype == y.dtype) rtol = tol.rtol, atol = tol.atol;
    const bool ints = y.dtype == dtype::int32;
    auto got_at = [&](long long i) -> double { return ints ? y.ints[i] : y.values[i]; };
    auto expected_at = [&](long long i) -> double { return ints ? r.ints[i] : r.values[i]; };
    std::vector<bool> wrong(n, false);
    long long wrong_count = 0, nonfinite = 0, first_nonfinite = -1;
    std::vector<std::pair<double, long long>> worst;
    for (long long i = 0; i < n; ++i) {
      const double yi = got_at(i), ri = expected_at(i);
      if (!std::isfinite(yi) && std::isfinite(ri)) {
        if (first_nonfinite < 0) first_nonfinite = i;
        ++nonfinite;
        wrong[i] = true;
        ++wrong_count;
        continue;
      }
      const double err = std::abs(yi - ri);
      if (!(err <= atol + rtol * std::abs(ri)) && !(yi == ri)) {
        wrong[i] = true;
        ++wrong_count;
        worst.emplace_back(err, i);
      }
    }
    if (wrong_count == 0) continue;
    diagnostic d;
    d.buffer = y.name;
    std::ostringstream s;
    if (nonfinite > 0) {
      d.kind = kind::nan_inf;
      s << "nan-inf: " << where << ": " << nonfinite << " of " << n << " elements of " << y.name
        << " are NaN or infinite where the reference is finite; the first is " << y.name
        << coords_of(y, first_nonfinite) << " = " << got_at(first_nonfinite) << " (expected "
        << expected_at(first_nonfinite) << ").\n";
      if (!nonfinite_cause.empty())
        s << nonfinite_cause << "\n";
      else
        s << "  Overflow in exp? Subtract the row's maximum before exponentiating. Division by "
             "zero? Check what the denominator sums.\n";
    } else {
      d.kind = kind::wrong_result;
      std::sort(worst.begin(), worst.end(), std::greater<>());
      s << "wrong-result: " << where << ": " << wrong_count << " of " << n << " elements of "
        << y.name << " differ from the reference (" << dtype_name(y.dtype) << ", rtol " << rtol
        << ", atol " << atol << "). The worst:\n";
      for (std::size_t k = 0; k < worst.size() && k < 5; ++k) {
        const long long i = worst[k].second;
        s << "    " << y.name << coords_of(y, i) << ": yours " << got_at(i) << ", expected "
          << expected_at(i) << "\n";
      }
    }
    s << wrong_map(y, wrong);
    d.message = s.str();
    while (!d.message.empty() && d.message.back() == '\n') d.message.pop_back();
    return d;
  }
  return std::nullopt;
}

namespace {

std::vector<tensor_counters> counters_of(const std::vector<tl::sim::buffer>& buffers) {
  std::vector<tensor_counters> out;
  for (const auto& b : buffers) {
    const auto& c = b.counters;
    out.push_back({b.name(), c.loads, c.stores, c.load_bytes + c.store_bytes,
                   c.masked_loads + c.masked_stores, c.max_element_reads,
                   c.max_program_element_reads, c.max_program_loads});
  }
  return out;
}

launch_request request_for(const puzzle_spec& spec, std::size_t c, const kernel_entry& kernel,
                           std::vector<tensor>& tensors) {
  launch_request request;
  request.grid = spec.grid(spec.cases[c].sizes, kernel.blocks);
  request.tensors = &tensors;
  request.sizes = spec.cases[c].sizes;
  return request;
}

long long total_stores(const sim_outcome& run) {
  long long stores = 0;
  for (const auto& b : run.buffers) stores += b.counters.stores;
  return stores;
}

// What a kernel did across the cases of one set of block sizes, when a run stored nothing.
struct activity {
  bool stores = false;  // some case stores something, or fails on its own
  bool works = false;   // some case runs a tile operation
};

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

// The programs at the corners of a grid: the first and the last along each axis, as linear ids.
std::vector<int> corner_programs(const std::array<int, 3>& grid) {
  std::vector<int> ids;
  for (int z : {0, grid[2] - 1})
    for (int y : {0, grid[1] - 1})
      for (int x : {0, grid[0] - 1}) {
        const long long id = x + 1LL * grid[0] * (y + 1LL * grid[1] * z);
        if (id >= 0 && id <= std::numeric_limits<int>::max() &&
            std::find(ids.begin(), ids.end(), static_cast<int>(id)) == ids.end())
          ids.push_back(static_cast<int>(id));
      }
  return ids;
}

bool launchers_given(const puzzle_spec& spec, impl which) {
  return !spec.kernels.empty() &&
         std::all_of(spec.kernels.begin(), spec.kernels.end(),
                     [&](const kernel_entry& k) { return k.get(which) != nullptr; });
}

// The launchers of a puzzle's kernels on one backend, from its module (built first when the
// options allow), or the diagnostic that takes their place.
std::variant<std::vector<void (*)()>, diagnostic> module_launchers(const puzzle_spec& spec,
                                                                   const check_options& options,
                                                                   tp::backend where) {
  const module_ref ref{&spec, options.which, where};
  if (where == backend::simulator && !options.simulator_launchers.empty())
    return options.simulator_launchers;
  if (options.modules.build && !(where == backend::simulator && options.simulator_modules_built)) {
    auto built = build_modules({ref}, options.modules);
    if (built[0]) return *built[0];
  }
  auto loaded = load_module(ref, options.modules);
  if (auto* d = std::get_if<diagnostic>(&loaded)) return *d;
  return std::get<loaded_module>(loaded).launchers;
}

// What the masked-off lanes of one load decide, found by running a wrong run again: once with
// a probe that notes the loads whose `other` filled lanes, then once per such load with another
// `other` in their place (the identities of a sum, a maximum, a minimum). A load whose change
// makes the run right is the one to point at.
}  // namespace

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

int simulator_runs(const puzzle_spec& spec) {
  int runs = 0;
  for (const kernel_entry& kernel : spec.kernels)
    // Three orders for a small case, one for a case of the large tier.
    for (const test_case& c : spec.cases)
      runs += spec.runs(c.sizes, kernel.blocks) ? (c.large ? 1 : 3) : 0;
  return runs;
}

puzzle_report check_puzzle(const puzzle_spec& spec, const check_options& options) {
  puzzle_report report;
  report.spec = &spec;
  report.which = options.which;
  report.seed = options.seed;
  tl::sim::launch_options launch;
  launch.op_budget = options.op_budget;

  auto fail = [&](diagnostic d) {
    report.status = d.kind == kind::not_solved ? status::not_solved : status::failed;
    // What the failing case holds (a clue, not a verdict), and how to see the run drawn.
    if (d.kind != kind::not_solved && d.kind != kind::compile_error &&
        !report.case_about.empty())
      d.message += "\n  About this case: " + report.case_about;
    report.diagnostics.push_back(std::move(d));
    if (const auto run = failed_run(report))
      report.diagnostics.back().message += "\n  To see this run: " + show_command(spec, *run, options);
    return report;
  };
  auto at_case = [&](std::size_t c, const kernel_entry& kernel, std::string order) {
    report.sizes = spec.cases[c].sizes;
    report.blocks = kernel.blocks;
    report.order = std::move(order);
    report.case_index = static_cast<int>(c);
    report.kernel_index = static_cast<int>(&kernel - spec.kernels.data());
    report.case_about = spec.cases[c].about;
    report.dtype = kernel.dtype;
  };

  const bool given = launchers_given(spec, options.which);
  report.kernel_file = given ? (options.which == impl::stub ? spec.stub_file : spec.solution_file)
                             : shown_kernel_file(spec, options.which, options.modules);
  std::vector<sim_launcher> launchers;
  if (given) {
    for (const auto& k : spec.kernels) launchers.push_back(k.get(options.which));
  } else {
    auto found = module_launchers(spec, options, backend::simulator);
    if (auto* d = std::get_if<diagnostic>(&found)) return fail(*d);
    for (auto* l : std::get<std::vector<void (*)()>>(found))
      launchers.push_back(reinterpret_cast<sim_launcher>(l));
  }

  // The cases' inputs and expected outputs, once per dtype the kernels are instantiated with,
  // made when a case first runs (the large tier's only once the small cases pass).
  std::map<dtype, std::map<std::size_t, case_data>> cases_by_dtype;
  auto case_for = [&](const kernel_entry& kernel, std::size_t c) -> const case_data& {
    auto& cases = cases_by_dtype[kernel.dtype];
    auto it = cases.find(c);
    if (it == cases.end())
      it = cases.emplace(c, make_case(spec, spec.cases[c], options.seed, c, kernel.dtype)).first;
    return it->second;
  };

  // Every small case with every block size and order, then the large tier in one order.
  for (const bool large_tier : {false, true}) {
    if (large_tier && (!options.large_tier || options.orders.empty())) break;
    const std::vector<tl::sim::order> orders =
        large_tier ? std::vector<tl::sim::order>{options.orders.front()} : options.orders;
    launch.op_budget = options.op_budget * (large_tier ? large_tier_op_budget_factor : 1);
    for (std::size_t k = 0; k < spec.kernels.size(); ++k) {
      const kernel_entry& kernel = spec.kernels[k];
      const auto case_at = [&](std::size_t c) -> const case_data& { return case_for(kernel, c); };
      for (std::size_t c = 0; c < spec.cases.size(); ++c) {
        if (spec.cases[c].large != large_tier || !spec.runs(spec.cases[c].sizes, kernel.blocks))
          continue;
        const case_data& the_case = case_at(c);
        for (auto order : orders) {
          at_case(c, kernel, tl::sim::order_name(order));
          const std::string where = "case " + report.case_label();
          if (options.on_case)
            options.on_case({where, c, &spec.cases[c].sizes, &kernel.blocks, report.order, k});
          auto tensors = the_case.tensors;
          const launch_request request = request_for(spec, c, kernel, tensors);
          launch.order = order;
          launch.seed = mix_seed(options.seed, c, 0x5eed);
          sim_outcome run = launchers[k](request, launch);
          ++report.runs;
          report.max_program_ops = std::max(report.max_program_ops, run.result.max_program_ops);
          report.counters = counters_of(run.buffers);
          if (run.result.error) {
            diagnostic d = *run.result.error;
            d.message += "\n  (" + where + ")";
            return fail(std::move(d));
          }
          std::optional<activity> nothing_stored;
          if (total_stores(run) == 0) {
            const activity seen = activity_in_cases(kernel, launchers[k], options, spec, case_at);
            if (!seen.stores) nothing_stored = seen;
          }
          // The block sizes with which the kernel writes all of output t in this case.
          auto covering = [&](std::size_t t) {
            std::string with;
            for (std::size_t other = 0; other < spec.kernels.size(); ++other) {
              if (other == k || !spec.runs(spec.cases[c].sizes, spec.kernels[other].blocks))
                continue;
              auto again = case_for(spec.kernels[other], c).tensors;
              tl::sim::launch_options forward;
              forward.op_budget = launch.op_budget;
              const sim_outcome covered = launchers[other](
                  request_for(spec, c, spec.kernels[other], again), forward);
              if (covered.result.error || covered.buffers[t].unwritten_count() > 0) continue;
              with += (with.empty() ? "" : " and with ") + blocks_label(spec, spec.kernels[other]);
            }
            return with;
          };
          if (auto d = check_clean_run(spec, report.kernel_file, run, tensors, where,
                                       nothing_stored ? &*nothing_stored : nullptr, covering))
            return fail(*d);
          if (auto d = compare_outputs(spec, tensors, the_case.expected, where)) {
            if (d->kind == kind::nan_inf) {
              // The same run again, tracing where the program that wrote the first bad element
              // made its first NaN or infinity.
              const auto [t, at] = first_nonfinite(tensors, the_case.expected);
              auto again = the_case.tensors;
              tl::sim::launch_options traced = launch;
              traced.trace_nonfinite = true;
              traced.lane_by_lane = true;  // the bulk paths do not trace
              traced.trace_program = run.buffers[t].shadow[at].writer;
              const sim_outcome rerun = launchers[k](request_for(spec, c, kernel, again), traced);
              const bool nan = std::isnan(tensors[t].values[at]);
              const std::string cause = tl::sim::nonfinite_cause(rerun.result.nonfinite, nan);
              if (!cause.empty()) {
                d = compare_outputs(spec, tensors, the_case.expected, where, cause);
                d->cause = tl::sim::nonfinite_summary(rerun.result.nonfinite, nan);
              }
            }
            if (options.probe_other)
              explain_by_other(spec, c, kernel, launchers[k], the_case, launch, *d);
            return fail(*d);
          }
          run_facts facts{spec.cases[c].sizes, kernel.blocks, request.grid, run.buffers};
          for (const auto& b : spec.budgets) {
            if (auto complaint = b.check(facts)) {
              diagnostic d;
              d.kind = kind::efficiency_budget;
              d.message = "efficiency-budget: " + where + ": " + *complaint + "\n  The budget: " +
                          b.description;
              return fail(d);
            }
          }
        }
      }
    }
  }

  // The size bounds: every kernel entry, dry (no buffers, no values), at every corner of the
  // sizes the puzzle allows, in the programs at the corners of the grid: every index must stay
  // in int32 and in bounds there too, where no case could allocate the tensors.
  for (std::size_t k = 0; k < spec.kernels.size() && options.size_bounds; ++k) {
    const kernel_entry& kernel = spec.kernels[k];
    for (const auto& bound : spec.size_bounds) {
      if (!spec.runs(bound, kernel.blocks)) continue;
      std::vector<tensor> shapes;
      for (const auto& ts : spec.tensors) {
        tensor t;
        t.name = ts.name;
        t.output = ts.output;
        t.shape = ts.shape(bound);
        t.dtype = ts.dtype_for(kernel);
        shapes.push_back(std::move(t));
      }
      launch_request request;
      request.grid = spec.grid(bound, kernel.blocks);
      request.tensors = &shapes;
      request.sizes = bound;
      tl::sim::launch_options dry;
      dry.dry = true;
      dry.op_budget = options.op_budget * large_tier_op_budget_factor;
      dry.programs = corner_programs(request.grid);
      const std::string where =
          "size bound " + case_label(spec, bound, kernel.blocks, "", kernel.dtype);
      if (options.on_case)
        options.on_case({where, spec.cases.size(), &bound, &kernel.blocks, "", k});
      const sim_outcome run = launchers[k](request, dry);
      ++report.bound_runs;
      if (run.result.error) {
        // Only a failing bound takes over the report: a passing one has no counters or values,
        // and the report keeps describing the last case run.
        report.sizes = bound;
        report.blocks = kernel.blocks;
        report.order.clear();
        report.case_index = -1;
        report.dtype = kernel.dtype;
        report.kernel_index = static_cast<int>(k);
        report.case_about = "The size bounds: the sizes this puzzle allows (" +
                            spec.size_bounds_rule +
                            "), run without buffers in the programs at the corners of the grid "
                            "(the first and the last along each axis).";
        diagnostic d = *run.result.error;
        d.message += "\n  (" + where + ": checked without buffers, at sizes the puzzle allows "
                     "but no case can allocate)";
        return fail(std::move(d));
      }
    }
  }

  if (options.gpu) {
    if (given || !gpu_enabled(spec)) {
      const std::string& why = spec.not_on_gpu_because;
      report.gpu_note = "not yet on the GPU" + (why.empty() ? std::string() : " (" + why + ")") +
                        ": checked in the simulator only";
    } else {
      auto found = module_launchers(spec, options, backend::gpu);
      if (auto* d = std::get_if<diagnostic>(&found)) return fail(*d);
      const auto& gpu_launchers = std::get<std::vector<void (*)()>>(found);
      for (std::size_t k = 0; k < spec.kernels.size(); ++k) {
        const kernel_entry& kernel = spec.kernels[k];
        const auto launcher = reinterpret_cast<gpu::launcher>(gpu_launchers[k]);
        for (std::size_t c = 0; c < spec.cases.size(); ++c) {
          if (!spec.runs(spec.cases[c].sizes, kernel.blocks)) continue;
          if (spec.cases[c].large && !options.large_tier) continue;
          const case_data& the_case = case_for(kernel, c);
          at_case(c, kernel, "");
          const std::string where = "on the GPU, case " + report.case_label();
          if (options.on_case)
            options.on_case({where, c, &spec.cases[c].sizes, &kernel.blocks, report.order, k});
          auto tensors = the_case.tensors;
          for (auto& t : tensors)
            if (t.output) std::fill(t.values.begin(), t.values.end(), NAN);
          const std::string error = launcher(request_for(spec, c, kernel, tensors));
          ++report.gpu_runs;
          if (!error.empty()) {
            diagnostic d;
            d.kind = kind::crash;
            d.message = "crash: " + where + ": " + error;
            return fail(d);
          }
          if (auto d = compare_outputs(spec, tensors, the_case.expected, where)) return fail(*d);
        }
      }
      report.gpu_note = "matches the reference on the GPU (" + std::to_string(report.gpu_runs) +
                        " runs)";
    }
  }
  report.status = status::solved;
  return report;
}

}  // namespace tp
