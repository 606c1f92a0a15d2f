// tilepuzzles: list the puzzles, show one, check the learner's kernels (or the solutions).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/check.hpp"
#include "checker/gpu.hpp"
#include "checker/isolate.hpp"
#include "checker/modules.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"

namespace {

constexpr int exit_pass = 0;
constexpr int exit_fail = 1;
constexpr int exit_usage = 2;

int usage_error(const std::string& message) {
  std::cerr << "tilepuzzles: " << message << "\nRun 'tilepuzzles --help' for the commands.\n";
  return exit_usage;
}

std::string project_file(const std::string& relative) {
#ifdef TILEPUZZLES_SOURCE_DIR
  return std::string(TILEPUZZLES_SOURCE_DIR) + "/" + relative;
#else
  return relative;
#endif
}

int run_list() {
  std::printf("  #   id                       title                              your kernel\n");
  for (const tp::puzzle_spec* p : tp::all_puzzles())
    std::printf("  %-3d %-24s %-34s %s\n", p->number, p->id.c_str(), p->title.c_str(),
                p->stub_file.c_str());
  std::printf("\nCheck them with 'tilepuzzles check' (all) or 'tilepuzzles check 1' (one).\n");
  return exit_pass;
}

int run_show(const std::string& name) {
  const tp::puzzle_spec* p = tp::find_puzzle(name);
  if (!p) return usage_error("unknown puzzle '" + name + "'. Puzzles: " + tp::puzzle_choices());
  std::ifstream doc(project_file(p->doc_file));
  if (doc) {
    std::cout << doc.rdbuf();
  } else {
    std::printf("%d %s: %s\n%s\n", p->number, p->id.c_str(), p->title.c_str(), p->summary.c_str());
  }
  std::printf("\n---\nyour kernel: %s\nchecked with:", p->stub_file.c_str());
  for (const auto& k : p->kernels) {
    std::printf(" (");
    for (std::size_t i = 0; i < k.blocks.size(); ++i)
      std::printf("%s%s=%d", i ? ", " : "", p->block_names[i].c_str(), k.blocks[i]);
    std::printf(")");
  }
  std::printf("\non the cases, each there to catch a kind of mistake:");
  for (const auto& c : p->cases) {
    std::printf("\n  (");
    for (std::size_t i = 0; i < c.sizes.size(); ++i)
      std::printf("%s%s=%d", i ? ", " : "", p->size_names[i].c_str(), c.sizes[i]);
    std::printf(")%s%s", c.catches.empty() ? "" : " ", c.catches.c_str());
  }
  if (!p->case_fits_rule.empty())
    std::printf("\neach case runs with the block sizes that fit it: %s", p->case_fits_rule.c_str());
  std::printf("\ntolerance: rtol %g, atol %g\n", p->rtol, p->atol);
  for (const auto& b : p->budgets) std::printf("budget: %s\n", b.description.c_str());
  return exit_pass;
}

struct check_args {
  std::vector<std::string> puzzles;
  std::string impl = "stub";
  std::uint64_t seed = 0;
  std::string order = "all";
  bool gpu = false;
  bool json = false;
  double timeout = 300;
  double program_timeout = tp::default_program_seconds;
  bool isolate = true;
  std::string puzzles_dir;
  bool build = true;
};

// The report of a puzzle that was not checked because its module could not be built.
tp::isolated_report unchecked(const tp::puzzle_spec& spec, const tp::check_options& options,
                              tl::sim::diagnostic problem) {
  tp::puzzle_report r;
  r.spec = &spec;
  r.which = options.which;
  r.kernel_file = tp::shown_kernel_file(spec, options.which, options.modules);
  r.status = tp::status::failed;
  r.diagnostics.push_back(std::move(problem));
  return tp::summarize(r);
}

int run_check(const check_args& args) {
  std::vector<const tp::puzzle_spec*> chosen;
  for (const auto& name : args.puzzles) {
    const tp::puzzle_spec* p = tp::find_puzzle(name);
    if (!p) return usage_error("unknown puzzle '" + name + "'. Puzzles: " + tp::puzzle_choices());
    if (std::find(chosen.begin(), chosen.end(), p) == chosen.end()) chosen.push_back(p);
  }
  if (chosen.empty()) chosen = tp::all_puzzles();

  if (!args.puzzles_dir.empty()) {
    if (auto problem = tp::check_puzzles_dir(args.puzzles_dir)) return usage_error(*problem);
  }

  tp::check_options options;
  options.which = args.impl == "stub" ? tp::impl::stub : tp::impl::solution;
  options.modules.puzzles_dir = args.puzzles_dir;
  options.modules.build = args.build;
  options.seed = args.seed;
  options.gpu = args.gpu;
  using tl::sim::order;
  if (args.order == "forward") options.orders = {order::forward};
  if (args.order == "reverse") options.orders = {order::reverse};
  if (args.order == "shuffle") options.orders = {order::shuffle};

  if (args.gpu) {
    const auto device = args.isolate ? tp::probe_gpu_isolated() : tp::gpu::probe();
    if (!device.available) {
      std::cerr << "tilepuzzles: --gpu: " << device.description << "\n";
      return exit_fail;
    }
    if (!args.json) std::printf("GPU: %s\n", device.description.c_str());
  }

  const std::string shown_dir = [&] {
    const std::string file = tp::shown_kernel_file(*chosen.front(), options.which, options.modules);
    return file.substr(0, file.find_last_of('/') + 1);
  }();
  if (!args.json)
    std::printf("Checking %s (%s), seed %llu, program order %s%s\n\n",
                options.which == tp::impl::stub ? "your kernels" : "the reference solutions",
                shown_dir.c_str(), static_cast<unsigned long long>(args.seed), args.order.c_str(),
                args.gpu ? ", then on the GPU" : "");

  // Every chosen puzzle's module is brought up to date first, in one build (the compiles run in
  // parallel); a puzzle whose module does not build is reported without being run.
  std::vector<tp::module_ref> refs;
  for (const tp::puzzle_spec* p : chosen) refs.push_back({p, options.which, tp::backend::simulator});
  const auto built = tp::build_modules(refs, options.modules);
  options.simulator_modules_built = true;

  std::vector<tp::isolated_report> reports;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const tp::puzzle_spec* p = chosen[i];
    tp::isolated_report r;
    if (built[i]) r = unchecked(*p, options, *built[i]);
    else if (args.isolate) r = tp::check_isolated(*p, options, args.timeout, args.program_timeout);
    else r = tp::summarize(tp::check_puzzle(*p, options));
    if (!args.json) {
      std::printf("%s\n", r.line.c_str());
      std::fflush(stdout);
    }
    reports.push_back(std::move(r));
  }

  int solved = 0;
  const tp::puzzle_spec* next = nullptr;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (reports[i].status == tp::status::solved) ++solved;
    else if (!next) next = chosen[i];
  }

  if (args.json) {
    std::printf("[");
    for (std::size_t i = 0; i < reports.size(); ++i)
      std::printf("%s\n  %s", i ? "," : "", reports[i].json.c_str());
    std::printf("\n]\n");
  } else {
    bool header = false;
    for (const auto& r : reports) {
      if (r.details.empty()) continue;
      if (!header) std::printf("\n");
      header = true;
      std::printf("%s", r.details.c_str());
    }
    std::printf("\n%d of %zu %s.", solved, reports.size(),
                reports.size() == 1 ? "puzzle solved" : "puzzles solved");
    if (next)
      std::printf(" Next: puzzle %d (%s): edit %s; the statement is in %s.", next->number,
                  next->id.c_str(),
                  tp::shown_kernel_file(*next, tp::impl::stub, options.modules).c_str(),
                  next->doc_file.c_str());
    std::printf("\n");
  }
  return solved == static_cast<int>(reports.size()) ? exit_pass : exit_fail;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilepuzzles: GPU puzzles in the tile model of Triton, written in C++.\n"
               "Edit a kernel in puzzles/, then 'tilepuzzles check' tells you what is right and "
               "what is wrong."};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List the puzzles");

  std::string show_name;
  auto* show = app.add_subcommand("show", "Show a puzzle's statement, cases and budgets");
  show->add_option("puzzle", show_name, "Puzzle number or id")->required();

  check_args args;
  auto* check = app.add_subcommand("check", "Check puzzles in the simulator (and on the GPU)");
  check->add_option("puzzles", args.puzzles, "Puzzle numbers or ids (default: all)");
  check->add_option("--impl", args.impl, "Whose kernels: stub (yours, in puzzles/) or solution")
      ->check(CLI::IsMember({"stub", "solution"}))
      ->capture_default_str();
  check->add_option("--seed", args.seed, "Seed of the inputs and the shuffled order")
      ->capture_default_str();
  check->add_option("--order", args.order, "Program order: forward, reverse, shuffle or all")
      ->check(CLI::IsMember({"forward", "reverse", "shuffle", "all"}))
      ->capture_default_str();
  check->add_flag("--gpu", args.gpu, "Also run each puzzle on the GPU once the simulator passes");
  check->add_flag("--json", args.json, "Print one JSON array instead of text");
  check->add_option("--timeout", args.timeout, "Seconds one puzzle may take before it is stopped")
      ->check(CLI::Range(1.0, 86400.0).description("between 1 and 86400 seconds"))
      ->capture_default_str();
  check->add_option("--program-timeout", args.program_timeout,
                    "Seconds one program of a kernel may run before it is stopped as a loop that "
                    "never ends")
      ->check(CLI::Range(0.01, 86400.0).description("between 0.01 and 86400 seconds"))
      ->capture_default_str();
  check->add_flag("!--no-isolate", args.isolate,
                  "Check in this process (for a debugger) instead of a child process");
  check->add_option("--puzzles", args.puzzles_dir,
                    "Check the stubs in this directory instead of puzzles/ (a student's copy)");
  check->add_flag("!--no-build", args.build,
                  "Do not compile: refuse a puzzle whose file changed since it was compiled");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  if (*list) return run_list();
  if (*show) return run_show(show_name);
  if (*check) return run_check(args);
  return usage_error("choose a command: list, show or check");
}
