// The check loop, a matrix of runs: every small case with every kernel entry in every order,
// then the large tier in one order, then every entry dry at the spec's size bounds, then the GPU.
// The first run that fails ends it, explained by the passes of diagnosis.cpp.
#include "checker/check.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <cmath>
#include <map>
#include <variant>

#include "checker/check_passes.hpp"
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
  if (where == backend::gpu && !options.gpu_launchers.empty()) return options.gpu_launchers;
  if (options.modules.build && !(where == backend::simulator && options.simulator_modules_built)) {
    auto built = build_modules({ref}, options.modules);
    if (built[0]) return *built[0];
  }
  auto loaded = load_module(ref, options.modules);
  if (auto* d = std::get_if<diagnostic>(&loaded)) return *d;
  return std::get<loaded_module>(loaded).launchers;
}

}  // namespace

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

namespace {

// A report placed at case c with kernel entry k, in `order` ("" on the GPU).
void place_at_case(puzzle_report& report, const puzzle_spec& spec, std::size_t c, std::size_t k,
                   std::string order) {
  const kernel_entry& kernel = spec.kernels[k];
  report.sizes = spec.cases[c].sizes;
  report.blocks = kernel.blocks;
  report.order = std::move(order);
  report.case_index = static_cast<int>(c);
  report.kernel_index = static_cast<int>(k);
  report.case_about = spec.cases[c].about;
  report.dtype = kernel.dtype;
}

// A report failed with `d`: what the failing case holds (a clue, not a verdict), and how to see
// the run drawn.
puzzle_report finish_failure(puzzle_report report, diagnostic d, const check_options& options) {
  report.status = d.kind == kind::not_solved ? status::not_solved : status::failed;
  if (d.kind != kind::not_solved && d.kind != kind::compile_error && !report.case_about.empty())
    d.message += "\n  About this case: " + report.case_about;
  report.diagnostics.push_back(std::move(d));
  if (const auto run = failed_run(report))
    report.diagnostics.back().message +=
        "\n  To see this run: " + show_command(*report.spec, *run, options);
  return report;
}

}  // namespace

bool checks_only_on_gpu(const puzzle_spec& spec, const check_options& options) {
  return options.gpu_only && options.gpu && gpu_enabled(spec) &&
         !launchers_given(spec, options.which);
}

std::vector<judged_run> judged_runs(const puzzle_spec& spec, const check_options& options) {
  std::vector<judged_run> runs;
  const bool only_gpu = checks_only_on_gpu(spec, options);
  for (const bool large_tier : {false, true}) {
    if (only_gpu) break;
    if (large_tier && (!options.large_tier || options.orders.empty())) break;
    const std::vector<tl::sim::order> orders =
        large_tier ? std::vector<tl::sim::order>{options.orders.front()} : options.orders;
    for (std::size_t k = 0; k < spec.kernels.size(); ++k)
      for (std::size_t c = 0; c < spec.cases.size(); ++c) {
        if (spec.cases[c].large != large_tier || !spec.runs(spec.cases[c].sizes, spec.kernels[k].blocks))
          continue;
        for (const auto order : orders) runs.push_back({k, c, tl::sim::order_name(order), false});
      }
  }
  if (options.gpu && gpu_enabled(spec) && !launchers_given(spec, options.which))
    for (std::size_t k = 0; k < spec.kernels.size(); ++k)
      for (std::size_t c = 0; c < spec.cases.size(); ++c) {
        if (!spec.runs(spec.cases[c].sizes, spec.kernels[k].blocks)) continue;
        if (spec.cases[c].large && !options.large_tier) continue;
        runs.push_back({k, c, "", true});
      }
  return runs;
}

std::string judged_where(const puzzle_spec& spec, const judged_run& run) {
  puzzle_report report;
  report.spec = &spec;
  place_at_case(report, spec, run.case_index, run.kernel_index, run.gpu ? "" : run.order);
  return (run.gpu ? "on the GPU, case " : "case ") + report.case_label();
}

puzzle_report judged_failure(const puzzle_spec& spec, const check_options& options,
                             const judged_run& run, diagnostic d) {
  puzzle_report report;
  report.spec = &spec;
  report.which = options.which;
  report.seed = options.seed;
  report.kernel_file = shown_kernel_file(spec, options.which, options.modules);
  place_at_case(report, spec, run.case_index, run.kernel_index, run.gpu ? "" : run.order);
  return finish_failure(std::move(report), std::move(d), options);
}

std::string gpu_note(const puzzle_spec& spec, int gpu_runs, bool given) {
  if (given || !gpu_enabled(spec)) {
    const std::string& why = spec.not_on_gpu_because;
    return "not yet on the GPU" + (why.empty() ? std::string() : " (" + why + ")") +
           ": checked in the simulator only";
  }
  return "matches the reference on the GPU (" + std::to_string(gpu_runs) + " runs)";
}

std::string size_bounds_about(const puzzle_spec& spec) {
  return "The size bounds: the sizes this puzzle allows (" + spec.size_bounds_rule +
         "), run without buffers in the programs at the corners of the grid (the first and the "
         "last along each axis).";
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

  auto fail = [&](diagnostic d) { return finish_failure(report, std::move(d), options); };
  auto at_case = [&](std::size_t c, const kernel_entry& kernel, std::string order) {
    place_at_case(report, spec, c, static_cast<std::size_t>(&kernel - spec.kernels.data()),
                  std::move(order));
  };
  // The runs whose outputs are compared, counted as judged_runs lists them.
  std::size_t judged = 0;
  // Whether run `run` (number `judged`) produced the right outputs, `tensors`: compared here with
  // the case's reference, or judged elsewhere (check_options::judge). A wrong result's
  // diagnostic, with the reference it was compared with in `reference`.
  case_data judged_case;
  auto wrong_result = [&](const judged_run& run, const case_data& the_case,
                          const std::vector<tensor>& tensors, const std::string& where,
                          const case_data*& reference) -> std::optional<diagnostic> {
    reference = &the_case;
    if (!options.judge) return compare_outputs(spec, tensors, the_case.expected, where);
    auto expected = options.judge(judged++, run, tensors);
    if (!expected) return std::nullopt;
    judged_case = the_case;
    judged_case.expected = std::move(*expected);
    reference = &judged_case;
    if (judged_case.expected.size() == tensors.size())
      if (auto d = compare_outputs(spec, tensors, judged_case.expected, where)) return d;
    diagnostic d;
    d.kind = kind::wrong_result;
    d.message = "wrong-result: " + where + ": the outputs differ from the reference's.";
    return d;
  };

  const bool given = launchers_given(spec, options.which);
  report.kernel_file = given ? (options.which == impl::stub ? spec.stub_file : spec.solution_file)
                             : shown_kernel_file(spec, options.which, options.modules);
  // Only the GPU's runs: the simulator's module is not needed, and its runs are skipped below.
  const bool only_gpu = checks_only_on_gpu(spec, options);
  std::vector<sim_launcher> launchers;
  if (given) {
    for (const auto& k : spec.kernels) launchers.push_back(k.get(options.which));
  } else if (!only_gpu) {
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
      it = cases.emplace(c, make_case(spec, spec.cases[c], options.seed, c, kernel.dtype,
                                      !options.judge)).first;
    return it->second;
  };

  // Every small case with every block size and order, then the large tier in one order.
  for (const bool large_tier : {false, true}) {
    if (only_gpu) break;
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
          auto covering = [&](std::size_t t) {
            return blocks_covering(spec, c, k, launchers, t,
                                   [&](std::size_t other) -> const case_data& {
                                     return case_for(spec.kernels[other], c);
                                   },
                                   launch.op_budget);
          };
          if (auto d = check_clean_run(spec, report.kernel_file, run, tensors, where,
                                       nothing_stored ? &*nothing_stored : nullptr, covering))
            return fail(*d);
          const case_data* reference = nullptr;
          if (auto d = wrong_result({k, c, report.order, false}, the_case, tensors, where,
                                    reference)) {
            if (d->kind == kind::nan_inf)
              trace_nonfinite(spec, c, kernel, launchers[k], *reference, tensors, run, launch,
                              where, *d);
            if (options.probe_other)
              explain_by_other(spec, c, kernel, launchers[k], *reference, launch, *d);
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
  for (std::size_t k = 0; k < spec.kernels.size() && options.size_bounds && !only_gpu; ++k) {
    const kernel_entry& kernel = spec.kernels[k];
    for (const auto& bound : spec.size_bounds) {
      if (!spec.runs(bound, kernel.blocks)) continue;
      std::vector<tensor> shapes;
      for (const auto& ts : spec.tensors) {
        tensor t;
        t.name = ts.name;
        t.output = ts.output;
        t.zeroed = ts.zeroed;
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
        report.case_about = size_bounds_about(spec);
        diagnostic d = *run.result.error;
        d.message += "\n  (" + where + ": checked without buffers, at sizes the puzzle allows "
                     "but no case can allocate)";
        return fail(std::move(d));
      }
    }
  }

  if (options.gpu) {
    if (given || !gpu_enabled(spec)) {
      report.gpu_note = gpu_note(spec, 0, given);
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
            if (t.output) std::fill(t.values.begin(), t.values.end(), t.zeroed ? 0.0f : NAN);
          const std::string error = launcher(request_for(spec, c, kernel, tensors));
          ++report.gpu_runs;
          if (!error.empty()) {
            diagnostic d;
            d.kind = kind::crash;
            d.message = "crash: " + where + ": " + error;
            return fail(d);
          }
          const case_data* reference = nullptr;
          if (auto d = wrong_result({k, c, "", true}, the_case, tensors, where, reference))
            return fail(*d);
        }
      }
      report.gpu_note = gpu_note(spec, report.gpu_runs);
    }
  }
  report.status = status::solved;
  return report;
}

}  // namespace tp
