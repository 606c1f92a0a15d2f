// tilepuzzles: list the puzzles, show one, check the learner's kernels (or the solutions).
#include <CLI/CLI.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "checker/access_map.hpp"
#include "checker/bench.hpp"
#include "checker/check.hpp"
#include "checker/gpu.hpp"
#include "checker/grade.hpp"
#include "checker/hints.hpp"
#include "checker/html_report.hpp"
#include "checker/isolate.hpp"
#include "checker/modules.hpp"
#include "checker/progress.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/sandbox.hpp"
#include "checker/syscall_filter.hpp"
#include "checker/watch.hpp"

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

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// What a bare `tilepuzzles` prints: where to start, not CLI11's "A subcommand is required".
int run_usage() {
  std::printf(
      "tilepuzzles: GPU puzzles in the tile model of Triton, written in C++.\n"
      "\n"
      "Start here:\n"
      "  tilepuzzles list            the puzzles, and how far you are\n"
      "  tilepuzzles show 1          puzzle 1's statement, and a map of what your kernel touches\n"
      "  tilepuzzles check 1         compile and check your kernel in puzzles/constant_add.hpp\n"
      "  tilepuzzles hint 1          a hint (hint 1 2, hint 1 3 for more)\n"
      "  tilepuzzles watch 1         check again whenever you save a file in puzzles/\n"
      "\n"
      "Every command takes --help, e.g. 'tilepuzzles check --help'.\n");
  return exit_pass;
}

int run_hint(const std::string& name, int number) {
  const tp::puzzle_spec* p = tp::find_puzzle(name);
  if (!p) return usage_error("unknown puzzle '" + name + "'. Puzzles: " + tp::puzzle_choices());
  const std::string file = tp::hints_file(*p);
  const auto text = read_text(project_file(file));
  const auto hints = text ? tp::hints_in(*text) : std::vector<tp::hint>{};
  if (hints.empty()) {
    std::cerr << "tilepuzzles: no hints for puzzle " << p->number << " (" << p->id << "): "
              << file << (text ? " has no '## Hints' section of <details> blocks" : " cannot be read")
              << ".\n";
    return exit_fail;
  }
  const int count = static_cast<int>(hints.size());
  if (number < 1 || number > count)
    return usage_error("puzzle " + std::to_string(p->number) + " (" + p->id + ") has hints 1 to " +
                       std::to_string(count) + "; there is no hint " + std::to_string(number) +
                       ".");
  const tp::hint& h = hints[number - 1];
  const std::size_t colon = h.summary.find(": ");
  const std::string flavour = colon == std::string::npos ? "" : " (" + h.summary.substr(colon + 2) + ")";
  std::printf("Puzzle %d, %s: hint %d of %d%s\n\n%s\n\n", p->number, p->id.c_str(), number, count,
              flavour.c_str(), h.body.c_str());
  if (number < count) {
    const tp::hint& next = hints[number];
    const std::size_t c = next.summary.find(": ");
    std::printf("More: 'tilepuzzles hint %d %d'%s.\n", p->number, number + 1,
                c == std::string::npos ? "" : (" (" + next.summary.substr(c + 2) + ")").c_str());
  } else {
    std::printf("That was the last hint. The page has the tl pieces you need: %s\n",
                p->doc_file.c_str());
  }
  return exit_pass;
}

// Each puzzle with its state from the last check of the stubs (no compiling, no running), and
// where to go next.
int run_list(const std::string& puzzles_dir) {
  if (!puzzles_dir.empty()) {
    if (auto problem = tp::check_puzzles_dir(puzzles_dir)) return usage_error(*problem);
  }
  tp::module_options modules;
  modules.puzzles_dir = puzzles_dir;
  std::printf("  #   id                       title                              %-22s your kernel\n",
              "status");
  int solved = 0;
  const tp::puzzle_spec* next = nullptr;
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    const tp::puzzle_progress state = tp::progress_of(*p, modules);
    if (state.state == tp::progress::solved) ++solved;
    else if (!next) next = p;
    std::printf("  %-3d %-24s %-34s %-22s %s\n", p->number, p->id.c_str(), p->title.c_str(),
                tp::progress_text(state).c_str(),
                tp::shown_kernel_file(*p, tp::impl::stub, modules).c_str());
  }
  std::printf("\n%d of %zu puzzles solved (as of each puzzle's last 'tilepuzzles check').", solved,
              tp::all_puzzles().size());
  if (next)
    std::printf(" Next: puzzle %d (%s): 'tilepuzzles show %d', then edit %s and run "
                "'tilepuzzles check %d'.",
                next->number, next->id.c_str(), next->number,
                tp::shown_kernel_file(*next, tp::impl::stub, modules).c_str(), next->number);
  std::printf("\n");
  return exit_pass;
}

struct show_args {
  std::string name;
  std::string impl = "stub";
  int case_number = 0;  // 1-based; 0: the run the last check failed on, else the default case
  std::string blocks;   // "B0=4,B1=64"; empty: the first block sizes that run the case
  std::string order;    // empty: the failed run's, or forward
  std::optional<std::uint64_t> seed;  // unset: the failed run's, or 0
  std::string program;  // "i,j": one program's map; empty: every program
  std::string puzzles_dir;
  std::string html;
  std::string color = "auto";
  bool run = true;
  double timeout = 60;
  bool sandbox = true;
  long memory_mb = tp::sandbox::default_memory_mb;
};

// The run `show` draws, resolved from its options before anything is printed.
struct show_choice {
  tp::run_id run;
  int program = -1;          // linear id, -1: every program
  bool replays_check = false;  // the run the last check failed on
};

// Whether to colour the terminal maps: a terminal, and no NO_COLOR (https://no-color.org).
bool use_color(const std::string& mode) {
  if (mode != "auto") return mode == "always";
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

int show_run(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice);

// Says a note about the sandbox once per process, on stderr.
void say_once(const std::string& text) {
  static bool said = false;
  if (!said) std::cerr << "tilepuzzles: " << text << "\n";
  said = true;
}

// Whether a sandbox can be made here; where none can, says so once (the stubs are then
// compiled and run as before, without one).
bool sandbox_usable() {
  if (const auto& why = tp::sandbox::unavailable()) {
    say_once("no sandbox on this machine: " + *why + ". Your kernels are compiled and run as "
             "before, without one.");
    return false;
  }
  return true;
}

int show_result(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice,
                const std::variant<tp::traced_run, tl::sim::diagnostic>& result);
void print_show_heading(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice);
tl::sim::order order_named(const std::string& name);

// show_run in a child process: a kernel that crashes or never ends is reported, as `check` does,
// instead of taking `show` down with it. The child prints and writes the HTML itself.
int show_run_isolated(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice) {
  // A stub is compiled and run in the sandbox, as `check` does: the runner sends the traced run
  // back and this process draws it.
  const bool sandboxed = args.impl == "stub" && args.sandbox && sandbox_usable();
  // The module is brought up to date before the clock starts, so --timeout bounds the kernel's
  // run and not a build waiting for the build lock on a busy machine. A build that fails is
  // reported by the child, whose run_traced finds the same compile error.
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  modules.sandbox = sandboxed;
  modules.memory_mb = args.memory_mb;
  std::optional<tl::sim::diagnostic> build_problem;
  if (args.puzzles_dir.empty() || !tp::check_puzzles_dir(args.puzzles_dir)) {
    const tp::impl which = args.impl == "stub" ? tp::impl::stub : tp::impl::solution;
    build_problem = tp::build_modules({tp::module_ref{&p, which, tp::backend::simulator}}, modules)[0];
  }
  if (sandboxed) {
    print_show_heading(p, args, choice);
    modules.build = false;
    if (build_problem) return show_result(p, args, choice, *build_problem);
    return show_result(p, args, choice,
                       tp::run_traced_sandboxed(p, modules, static_cast<std::size_t>(choice.run.case_index),
                                                choice.run.seed,
                                                static_cast<std::size_t>(choice.run.kernel_index),
                                                order_named(choice.run.order), args.timeout));
  }
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child < 0) return show_run(p, args, choice);
  if (child == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    const int rc = show_run(p, args, choice);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(args.timeout);
  int wstatus = 0;
  for (;;) {
    const pid_t done = ::waitpid(child, &wstatus, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return exit_fail;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &wstatus, 0);
      std::printf("\nop-budget: the run did not finish within %g s. Is there a loop that never "
                  "ends? 'tilepuzzles check %d' says where it stopped.\n", args.timeout, p.number);
      return exit_fail;
    }
    ::usleep(20000);
  }
  if (WIFSIGNALED(wstatus)) {
    std::printf("\ncrash: the kernel crashed with signal %d (%s) while show ran it. "
                "'tilepuzzles check %d' says where.\n",
                WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)), p.number);
    return exit_fail;
  }
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : exit_fail;
}

// Which run `show` draws, from its options; a usage error's message when they name none. Checked
// before the page is printed, so that a bad option prints nothing on stdout.
std::variant<show_choice, std::string> choose_show_run(const tp::puzzle_spec& p,
                                                       const show_args& args) {
  show_choice choice;
  const int cases = static_cast<int>(p.cases.size());
  if (args.case_number < 0 || args.case_number > cases)
    return "--case " + std::to_string(args.case_number) + ": puzzle " + std::to_string(p.number) +
           " has cases 1 to " + std::to_string(cases);
  std::optional<std::size_t> kernel;
  if (!args.blocks.empty()) {
    std::string error;
    kernel = tp::parse_blocks(p, args.blocks, error);
    if (!kernel) return error;
  }
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  const auto failed = args.impl == "stub" && args.case_number == 0 && !kernel
                          ? tp::last_failed_run(p, modules)
                          : std::nullopt;
  if (failed) {
    choice.run = *failed;
    choice.replays_check = true;
  } else {
    const std::size_t c = args.case_number > 0 ? static_cast<std::size_t>(args.case_number - 1)
                                               : tp::default_case(p, kernel);
    if (!kernel) kernel = tp::kernel_for_case(p, c);
    if (!kernel || !p.runs(p.cases[c].sizes, p.kernels[*kernel].blocks)) {
      std::string fitting;
      for (std::size_t k = 0; k < p.kernels.size(); ++k)
        if (p.runs(p.cases[c].sizes, p.kernels[k].blocks))
          fitting += (fitting.empty() ? "" : ", ") + tp::blocks_argument(p, k);
      return "--case " + std::to_string(c + 1) + " runs with " +
             (fitting.empty() ? std::string("no block sizes") : "--blocks " + fitting) +
             " only (" + p.case_fits_rule + ")";
    }
    choice.run = {static_cast<int>(c), static_cast<int>(*kernel), "forward", 0};
  }
  if (!args.order.empty()) choice.run.order = args.order;
  if (args.seed) choice.run.seed = *args.seed;
  if (!args.program.empty()) {
    const auto& sizes = p.cases[static_cast<std::size_t>(choice.run.case_index)].sizes;
    const auto grid = p.grid(sizes, p.kernels[static_cast<std::size_t>(choice.run.kernel_index)].blocks);
    std::string error;
    const auto chosen = tp::parse_program(args.program, grid, error);
    if (!chosen) return error;
    choice.program = *chosen;
  }
  return choice;
}

int run_show(const show_args& args) {
  const std::string& name = args.name;
  const tp::puzzle_spec* p = tp::find_puzzle(name);
  if (!p) return usage_error("unknown puzzle '" + name + "'. Puzzles: " + tp::puzzle_choices());
  if (!args.run && !args.html.empty())
    return usage_error("--html draws a run of the kernel, and --no-run asks for none: leave out "
                       "one of them.");
  if (!args.puzzles_dir.empty()) {
    if (auto problem = tp::check_puzzles_dir(args.puzzles_dir)) return usage_error(*problem);
  }
  const auto chosen = choose_show_run(*p, args);
  if (const auto* error = std::get_if<std::string>(&chosen)) return usage_error(*error);
  const show_choice& choice = std::get<show_choice>(chosen);

  if (const auto page = read_text(project_file(p->doc_file))) {
    std::cout << *page;
  } else {
    std::printf("%d %s: %s\n%s\n", p->number, p->id.c_str(), p->title.c_str(), p->summary.c_str());
  }
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  std::printf("\n---\nyour kernel: %s\nchecked with (--blocks):",
              tp::shown_kernel_file(*p, tp::impl::stub, modules).c_str());
  for (std::size_t k = 0; k < p->kernels.size(); ++k)
    std::printf(" %s", tp::blocks_argument(*p, k).c_str());
  if (p->kernels.size() > 1 && p->kernels.front().dtype != tp::dtype::float32) {
    std::printf(" (");
    for (std::size_t k = 0; k < p->kernels.size(); ++k)
      std::printf("%s%s", k ? ", " : "", tp::dtype_name(p->kernels[k].dtype));
    std::printf(")");
  }
  std::printf("\non the cases (--case), with what each holds:");
  for (std::size_t c = 0; c < p->cases.size(); ++c) {
    const auto& the_case = p->cases[c];
    std::printf("\n  %2zu. (", c + 1);
    for (std::size_t i = 0; i < the_case.sizes.size(); ++i)
      std::printf("%s%s=%d", i ? ", " : "", p->size_names[i].c_str(), the_case.sizes[i]);
    std::printf(")%s%s", the_case.about.empty() ? "" : " ", the_case.about.c_str());
  }
  if (!p->case_fits_rule.empty())
    std::printf("\neach case runs with the block sizes that fit it: %s", p->case_fits_rule.c_str());
  if (!p->size_bounds_rule.empty())
    std::printf("\nthe sizes it allows, where every index is checked to stay in int32: %s",
                p->size_bounds_rule.c_str());
  std::printf("\nin the program orders forward, reverse and shuffle (the large tier in forward "
              "only): %d runs",
              tp::simulator_runs(*p));
  std::printf("\ntolerance: rtol %g, atol %g", p->rtol, p->atol);
  for (const auto& t : p->tolerances)
    std::printf("; %s outputs: rtol %g, atol %g", tp::dtype_name(t.dtype), t.rtol, t.atol);
  std::printf("\n");
  for (const auto& b : p->budgets) std::printf("budget: %s\n", b.description.c_str());
  if (!args.run) return exit_pass;
  return show_run_isolated(*p, args, choice);
}

tl::sim::order order_named(const std::string& name) {
  if (name == "reverse") return tl::sim::order::reverse;
  if (name == "shuffle") return tl::sim::order::shuffle;
  return tl::sim::order::forward;
}

// The line before show's maps: which run they are of.
void print_show_heading(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice) {
  const std::string whose = args.impl == "stub" ? "your kernel" : "the reference solution";
  if (choice.replays_check)
    std::printf("\n--- The run your last check failed on (tilepuzzles show %d %s; --case N for "
                "another)\n", p.number, tp::replay_arguments(p, choice.run).c_str());
  else
    std::printf("\n--- What %s does (tilepuzzles show %d --case N --blocks ... --program i,j "
                "for others)\n", whose.c_str(), p.number);
  std::fflush(stdout);
}

int show_result(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice,
                const std::variant<tp::traced_run, tl::sim::diagnostic>& result);

// One run of the kernel, traced: the maps of what each program touched, and what went wrong.
int show_run(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice) {
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  const tp::impl which = args.impl == "stub" ? tp::impl::stub : tp::impl::solution;
  const auto case_index = static_cast<std::size_t>(choice.run.case_index);
  print_show_heading(p, args, choice);
  auto result = tp::run_traced(p, which, modules, case_index, choice.run.seed,
                               static_cast<std::size_t>(choice.run.kernel_index),
                               order_named(choice.run.order));
  return show_result(p, args, choice, result);
}

// What show prints of a traced run (and the HTML page it writes), wherever it ran.
int show_result(const tp::puzzle_spec& p, const show_args& args, const show_choice& choice,
                const std::variant<tp::traced_run, tl::sim::diagnostic>& result) {
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  const tp::impl which = args.impl == "stub" ? tp::impl::stub : tp::impl::solution;
  tp::html_section section;
  section.spec = &p;
  section.kernel_file = tp::shown_kernel_file(p, which, modules);
  auto write_html = [&]() -> int {
    if (args.html.empty()) return exit_pass;
    const std::string title = "tilepuzzles show " + std::to_string(p.number) + " (" + p.id + ")";
    if (auto error = tp::write_file(args.html, tp::html_page(title, {section}))) {
      std::cerr << "tilepuzzles: --html: " << *error << "\n";
      return exit_fail;
    }
    std::printf("\nThe HTML report: %s\n", args.html.c_str());
    return exit_pass;
  };
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&result)) {
    std::printf("%s\n", problem->message.c_str());
    section.verdict = "FAILED " + problem->kind;
    section.problem = *problem;
    const int written = write_html();
    // A run that did not end (a crash, a loop that never ends, an attempt the sandbox stopped)
    // fails `show`, as the unsandboxed run's child does.
    const std::string& k = problem->kind;
    if (k == tl::sim::kind::crash || k == tl::sim::kind::op_budget || k == tl::sim::kind::sandbox)
      return exit_fail;
    return written;
  }
  const tp::traced_run& run = std::get<tp::traced_run>(result);
  tp::render_options render;
  render.color = use_color(args.color);
  std::printf("%s", tp::render_maps(run, choice.program, render).c_str());
  if (!run.printed.empty()) {
    constexpr std::size_t most = 64 * 1024;
    std::printf("\nWhat tl::print printed (? poison, - masked off):\n%s%s",
                run.printed.substr(0, most).c_str(),
                run.printed.size() > most ? "... (cut here: print less)\n" : "");
  }
  if (run.problem) std::printf("\n%s\n", run.problem->message.c_str());
  else std::printf("\nThis run is right: the outputs match the reference.%s\n",
                   which == tp::impl::stub ? " 'tilepuzzles check' runs every case." : "");
  section.problem = run.problem;
  section.verdict = !run.problem ? tp::html_right_verdict
                    : run.problem->kind == std::string(tl::sim::kind::not_solved)
                        ? "not solved"
                        : "FAILED " + run.problem->kind;
  section.run = run;
  return write_html();
}

struct check_args {
  std::vector<std::string> puzzles;
  bool sandbox = true;
  long memory_mb = tp::sandbox::default_memory_mb;
  bool advice = true;
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
  std::string html;
};

// The HTML report of a check: each puzzle's verdict, and for a kernel that failed at run time
// the maps of the run it failed on (found again in this process: the kernel already ran to the
// end of that run in its child, so it neither crashes nor hangs there).
tp::html_section html_section_of(const tp::puzzle_spec& spec, const tp::isolated_report& r,
                                 const tp::check_options& options, double timeout_seconds) {
  tp::html_section section;
  section.spec = &spec;
  section.kernel_file = tp::shown_kernel_file(spec, options.which, options.modules);
  const std::string kind = tp::kind_of_report_line(r.line);
  if (r.status == tp::status::solved) {
    section.verdict = "solved";
    return section;
  }
  if (r.status == tp::status::not_solved) {
    section.verdict = "not solved";
    section.note = "The kernel stores nothing yet: write it in " + section.kernel_file + ".";
    return section;
  }
  section.verdict = "FAILED " + kind;
  tl::sim::diagnostic d;
  d.kind = kind;
  // The report's words: its details without their heading, each line two spaces less.
  std::istringstream lines(r.details);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("--- ", 0) == 0) continue;
    d.message += (d.message.empty() ? "" : "\n") + (line.rfind("  ", 0) == 0 ? line.substr(2) : line);
  }
  section.problem = d;
  if (kind == tl::sim::kind::crash || kind == tl::sim::kind::op_budget ||
      kind == tl::sim::kind::compile_error || kind == tl::sim::kind::sandbox) {
    section.note = "No maps for a " + kind + ".";
    return section;
  }
  // In the sandbox, the run the check failed on is run again there, traced, and drawn here.
  if (options.modules.sandbox && options.which == tp::impl::stub) {
    if (!r.failed) return section;
    tp::module_options no_build = options.modules;
    no_build.build = false;
    auto run = tp::run_traced_sandboxed(spec, no_build, static_cast<std::size_t>(r.failed->case_index),
                                        r.failed->seed,
                                        static_cast<std::size_t>(r.failed->kernel_index),
                                        order_named(r.failed->order), timeout_seconds);
    if (auto* traced = std::get_if<tp::traced_run>(&run)) {
      // The line and program the run's own finding points at, for the kernel's listing.
      if (traced->problem && traced->problem->kind == kind) {
        section.problem->source = traced->problem->source;
        section.problem->program = traced->problem->program;
      }
      section.run = std::move(*traced);
    } else {
      section.note = "No maps: running the kernel again to draw them ended so: " +
                     std::get<tl::sim::diagnostic>(run).message;
    }
    return section;
  }
  tp::check_options again = options;
  again.gpu = false;
  const tp::puzzle_report report = tp::check_puzzle(spec, again);
  if (report.passed() || report.diagnostics.empty()) return section;
  section.problem = report.diagnostics.front();
  // The run `check` failed on, by the numbers its report names (the same as `show`'s).
  const auto failed = tp::failed_run(report);
  if (!failed) return section;
  tl::sim::order order = tl::sim::order::forward;
  if (failed->order == "reverse") order = tl::sim::order::reverse;
  if (failed->order == "shuffle") order = tl::sim::order::shuffle;
  tp::module_options no_build = options.modules;
  no_build.build = false;
  auto run = tp::run_traced(spec, options.which, no_build,
                            static_cast<std::size_t>(failed->case_index), failed->seed,
                            static_cast<std::size_t>(failed->kernel_index), order);
  if (auto* traced = std::get_if<tp::traced_run>(&run)) section.run = std::move(*traced);
  return section;
}

// Whether this check compiles and runs the stubs in the sandbox. Where none can be made, `check`
// says so once and checks as before; `grade` refuses (checker/grade.cpp).
bool use_sandbox(const check_args& args, tp::impl which) {
  if (which != tp::impl::stub || !args.sandbox) return false;
  if (!sandbox_usable()) return false;
  if (!args.isolate) {
    say_once("--no-isolate: your kernels run in this process, so this check compiles and runs "
             "them without the sandbox.");
    return false;
  }
  return true;
}

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
  options.modules.memory_mb = args.memory_mb;
  options.modules.sandbox = use_sandbox(args, options.which);
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
  // The verdicts `list` shows are for the content checked, read before anything is built.
  const bool remember = options.which == tp::impl::stub && args.order == "all";
  std::vector<std::optional<std::uint64_t>> checked_content;
  for (const tp::puzzle_spec* p : chosen)
    checked_content.push_back(
        tp::content_hash(tp::files_of({p, tp::impl::stub, tp::backend::simulator},
                                      options.modules).kernel_file));
  std::vector<std::string> notes;
  const auto built = tp::build_modules(refs, options.modules, &notes);
  options.simulator_modules_built = true;

  std::vector<tp::isolated_report> reports;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const tp::puzzle_spec* p = chosen[i];
    tp::isolated_report r;
    if (built[i]) r = unchecked(*p, options, *built[i]);
    else if (args.isolate) r = tp::check_isolated(*p, options, args.timeout, args.program_timeout);
    else r = tp::summarize(tp::check_puzzle(*p, options));
    if (!notes[i].empty())
      tp::add_note(r, *p, tp::shown_kernel_file(*p, options.which, options.modules), notes[i]);
    if (remember && checked_content[i])
      tp::record_verdict(*p, options.modules, *checked_content[i], r.status,
                         tp::kind_of_report_line(r.line));
    if (options.which == tp::impl::stub) tp::record_failed_run(*p, options.modules, r.failed);
    if (!args.json) {
      std::printf("%s\n", r.line.c_str());
      std::fflush(stdout);
    }
    reports.push_back(std::move(r));
  }

  if (!args.html.empty()) {
    std::vector<tp::html_section> sections;
    for (std::size_t i = 0; i < chosen.size(); ++i)
      sections.push_back(html_section_of(*chosen[i], reports[i], options, args.timeout));
    if (auto error = tp::write_file(args.html, tp::html_page("tilepuzzles check", sections)))
      std::cerr << "tilepuzzles: --html: " << *error << "\n";
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
    if (!args.advice) {
      std::printf("\n");
      return solved == static_cast<int>(reports.size()) ? exit_pass : exit_fail;
    }
    if (next)
      std::printf(" Next: puzzle %d (%s): edit %s; the statement is in %s.", next->number,
                  next->id.c_str(),
                  tp::shown_kernel_file(*next, tp::impl::stub, options.modules).c_str(),
                  next->doc_file.c_str());
    std::printf("\n");
    if (remember && reports.size() < tp::all_puzzles().size()) {
      int overall = 0;
      const tp::puzzle_spec* overall_next = nullptr;
      for (const tp::puzzle_spec* p : tp::all_puzzles()) {
        if (tp::progress_of(*p, options.modules).state == tp::progress::solved) ++overall;
        else if (!overall_next) overall_next = p;
      }
      std::printf("Overall, %d of %zu puzzles are solved; 'tilepuzzles list' shows each.\n", overall,
                  tp::all_puzzles().size());
      // Every puzzle checked is solved: the learner's next step is the first puzzle that is not.
      if (!next && overall_next)
        std::printf("Next: puzzle %d (%s): 'tilepuzzles show %d', then edit %s.\n",
                    overall_next->number, overall_next->id.c_str(), overall_next->number,
                    tp::shown_kernel_file(*overall_next, tp::impl::stub, options.modules).c_str());
    }
  }
  return solved == static_cast<int>(reports.size()) ? exit_pass : exit_fail;
}

// Whether a sandbox can be made here, and with what (Gradescope's run_autograder asks).
int run_sandbox_status() {
  if (const auto& why = tp::sandbox::unavailable()) {
    std::printf("No sandbox on this machine: %s.\n'tilepuzzles check' compiles and runs your "
                "kernels without one; 'tilepuzzles grade' refuses to without --no-sandbox.\n",
                why->c_str());
    return exit_fail;
  }
  std::printf("The sandbox works here: stubs are compiled and run in bubblewrap (no network, the "
              "project's headers and the student's directory read-only, a private /tmp, limits "
              "on memory, CPU time, file size and processes)%s.\n",
              tp::syscall_filter::available()
                  ? ", and a system-call filter stops and reports what a stub attempts"
                  : "; this build has no system-call filter (libseccomp-dev was missing), so what "
                    "a stub attempts is contained but not reported");
  if (const auto how = tp::sandbox::process_limit())
    std::printf("A sandbox's processes are counted by %s (64 at most).\n", how->c_str());
  else
    std::printf("A sandbox's processes are not counted here: Linux exempts root from "
                "RLIMIT_NPROC, and this process may make no pids cgroup (/sys/fs/cgroup is "
                "read-only). %s Run the checker as another user, or give it a writable pids "
                "cgroup, to count them.\n",
                tp::syscall_filter::available()
                    ? "A check's run still cannot start a process (the system-call filter stops "
                      "it), and whatever a compile starts ends with it."
                    : "Whatever a compile or a check starts ends with it, but this build has no "
                      "system-call filter to stop a check's run from starting processes.");
  return exit_pass;
}

// Checks the chosen puzzle (or the puzzles whose files changed, or all) now and after each save.
int run_watch(check_args args, const std::string& puzzle, int interval_ms, bool once) {
  const tp::puzzle_spec* only = nullptr;
  if (!puzzle.empty()) {
    only = tp::find_puzzle(puzzle);
    if (!only) return usage_error("unknown puzzle '" + puzzle + "'. Puzzles: " + tp::puzzle_choices());
  }
  if (!args.puzzles_dir.empty()) {
    if (auto problem = tp::check_puzzles_dir(args.puzzles_dir)) return usage_error(*problem);
  }
  tp::module_options modules;
  modules.puzzles_dir = args.puzzles_dir;
  tp::watch_options options;
  options.dir = tp::stubs_dir(modules);
  const std::string shown = tp::shown_kernel_file(*tp::all_puzzles().front(), tp::impl::stub, modules);
  options.shown_dir = shown.substr(0, shown.find_last_of('/'));
  options.interval_ms = interval_ms;
  options.once = once;
  return tp::watch(options, [&](const std::vector<std::string>& changed) {
    check_args now = args;
    now.puzzles.clear();
    if (only) {
      now.puzzles.push_back(only->id);
    } else {
      for (const std::string& name : changed) {
        const tp::puzzle_spec* owner = nullptr;
        for (const tp::puzzle_spec* p : tp::all_puzzles()) {
          const std::string file = tp::shown_kernel_file(*p, tp::impl::stub, modules);
          if (file.substr(file.find_last_of('/') + 1) == name) owner = p;
        }
        // A file that is no puzzle's stub (a helper header) may matter to any of them.
        if (!owner) {
          now.puzzles.clear();
          break;
        }
        now.puzzles.push_back(owner->id);
      }
    }
    return run_check(now);
  });
}

}  // namespace

int main(int argc, char** argv) {
  // The sandbox's own entry points (checker/sandbox.hpp, checker/isolate.hpp): not commands for
  // people, so not in --help.
  if (argc > 1 && std::strcmp(argv[1], "__sandbox-run") == 0) return tp::sandboxed_run_main(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "__sandbox-compile") == 0) return tp::sandbox::compile_main(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "__limits") == 0) return tp::sandbox::limits_main(argc, argv);
  CLI::App app{"tilepuzzles: GPU puzzles in the tile model of Triton, written in C++.\n"
               "Edit a kernel in puzzles/, then 'tilepuzzles check' tells you what is right and "
               "what is wrong."};
  app.require_subcommand(0, 1);

  std::string list_dir;
  auto* list = app.add_subcommand("list", "List the puzzles and how far you are with each");
  list->add_option("--puzzles", list_dir, "The stubs in this directory instead of puzzles/");

  show_args show_options;
  auto* show = app.add_subcommand(
      "show", "Show a puzzle's statement, cases and budgets, and a map of what the kernel touches");
  show->add_option("puzzle", show_options.name, "Puzzle number or id")->required();
  show->add_option("--impl", show_options.impl, "Whose kernel runs: stub (yours) or solution")
      ->check(CLI::IsMember({"stub", "solution"}))
      ->capture_default_str();
  show->add_option("--case", show_options.case_number,
                   "Which case to run, 1 to the number of cases (default: the run your last "
                   "check failed on, else the first case with several programs)");
  show->add_option("--blocks", show_options.blocks,
                   "The block sizes to run it with, as a diagnostic names them: B0=4,B1=64 "
                   "(default: the first that run the case)");
  show->add_option("--order", show_options.order, "Program order: forward, reverse or shuffle")
      ->check(CLI::IsMember({"forward", "reverse", "shuffle"}));
  show->add_option("--seed", show_options.seed, "Seed of the inputs and the shuffled order, as "
                                                "check's --seed");
  show->add_option("--program", show_options.program,
                   "One program's map, by its ids: 1 or 1,0 (default: every program)");
  show->add_option("--puzzles", show_options.puzzles_dir,
                   "Run the stub in this directory instead of puzzles/");
  show->add_option("--color", show_options.color,
                   "Colour the maps: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  show->add_option("--html", show_options.html,
                   "Also write the maps and the diagnostic as one HTML page to this file");
  show->add_option("--timeout", show_options.timeout, "Seconds the run may take before it is stopped")
      ->check(CLI::Range(1.0, 86400.0).description("between 1 and 86400 seconds"))
      ->capture_default_str();
  show->add_flag("!--no-run", show_options.run, "Only the statement: do not run the kernel");
  show->add_flag("!--no-sandbox", show_options.sandbox,
                 "Compile and run your kernel without the sandbox (bubblewrap) that keeps it "
                 "from files, processes and the network");
  show->add_option("--memory-limit", show_options.memory_mb,
                   "MiB of memory your kernel's compile and its run may use in the sandbox")
      ->check(CLI::Range(64L, 1048576L).description("between 64 and 1048576 MiB"))
      ->capture_default_str();

  std::string hint_name;
  int hint_number = 1;
  auto* hint = app.add_subcommand("hint", "Show a puzzle's hints, one at a time (1 gentle, 2 "
                                          "specific, 3 nearly the answer)");
  hint->add_option("puzzle", hint_name, "Puzzle number or id")->required();
  hint->add_option("n", hint_number, "Which hint")->capture_default_str();

  check_args args;
  auto* check = app.add_subcommand("check", "Check puzzles in the simulator (and on the GPU)");
  // The positional is "puzzle", not "puzzles": CLI11 2.4 (Ubuntu 24.04's, found on the GPU machine)
  // throws for a positional named as a long option (--puzzles), before any subcommand runs.
  check->add_option("puzzle", args.puzzles, "Puzzle numbers or ids (default: all)");
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
                  "Check in this process (for a debugger) instead of a child process (your "
                  "kernels are then compiled and run without the sandbox)");
  check->add_option("--puzzles", args.puzzles_dir,
                    "Check the stubs in this directory instead of puzzles/ (a student's copy)");
  check->add_option("--html", args.html,
                    "Also write an HTML report (maps, diagnostics, kernel lines) to this file");
  check->add_flag("!--no-build", args.build,
                  "Do not compile: refuse a puzzle whose file changed since it was compiled");
  check->add_flag("!--report-only", args.advice,
                  "Print the verdicts and reports only, without the next step and the progress a "
                  "learner reads (for a grader's logs: cmake/grading.cmake)");
  check->add_flag("!--no-sandbox", args.sandbox,
                  "Compile and run your kernels without the sandbox (bubblewrap) that keeps them "
                  "from files, processes and the network");
  check->add_option("--memory-limit", args.memory_mb,
                    "MiB of memory a kernel's compile and its run may use in the sandbox")
      ->check(CLI::Range(64L, 1048576L).description("between 64 and 1048576 MiB"))
      ->capture_default_str();

  tp::bench::bench_args bench_args;
  auto* bench = app.add_subcommand(
      "bench", "Time the solutions on the GPU: size sweeps against the copy bandwidth");
  bench->add_option("puzzles", bench_args.puzzles,
                    "Puzzle numbers or ids (default: every benchmarked puzzle)");
  bench->add_option("--csv", bench_args.csv_file, "Write the measurements as CSV (bench/README.md)");
  bench->add_option("--plot", bench_args.plot_file, "Write an SVG line plot of each sweep");
  bench->add_option("--runs", bench_args.runs, "Timed launches per kernel and size (the median is shown)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  bench->add_option("--warmup", bench_args.warmup, "Untimed launches before the timed ones")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  bench_args.command_line = "tilepuzzles";
  for (int i = 1; i < argc; ++i) bench_args.command_line += " " + std::string(argv[i]);

  tp::grade::grade_args grade_args;
  auto* grade = app.add_subcommand(
      "grade", "Grade a class: check every student's copy of puzzles/ in SUBMISSIONS, in the sandbox");
  grade->add_option("submissions", grade_args.submissions,
                    "The directory with one directory per student, each a copy of puzzles/")
      ->required();
  grade->add_option("--out", grade_args.out,
                    "Where the summary, the JUnit file and each student's reports go")
      ->capture_default_str();
  grade->add_option("-j,--jobs", grade_args.jobs, "Copies checked at once (default: one per core)")
      ->check(CLI::Range(1, 256));
  grade->add_option("--points", grade_args.points_file,
                    "The points of each puzzle (default: docs/grading/points.txt)");
  grade->add_option("--seed", grade_args.seed, "Seed of the inputs and the shuffled order")
      ->capture_default_str();
  grade->add_option("--timeout", grade_args.timeout, "Seconds one puzzle's check may take")
      ->check(CLI::Range(1.0, 86400.0).description("between 1 and 86400 seconds"))
      ->capture_default_str();
  grade->add_option("--memory-limit", grade_args.memory_mb,
                    "MiB of memory a stub's compile and its run may use")
      ->check(CLI::Range(64L, 1048576L).description("between 64 and 1048576 MiB"))
      ->capture_default_str();
  grade->add_flag("!--no-sandbox", grade_args.sandbox,
                  "Grade without the sandbox: only inside a container or account you can throw away");
  grade->add_flag("!--no-cache", grade_args.use_cache,
                  "Check every stub again, even one whose verdict is known from its content");

  auto* sandbox = app.add_subcommand(
      "sandbox", "Say whether stubs can be compiled and run in the sandbox here, and if not, why");

  std::string watch_name;
  check_args watch_args;
  int watch_interval_ms = 300;
  bool watch_once = false;
  auto* watch = app.add_subcommand(
      "watch", "Check again whenever you save a file in puzzles/ (Ctrl-C to stop)");
  watch->add_option("puzzle", watch_name,
                    "Puzzle number or id to check (default: the puzzles whose files change)");
  watch->add_option("--puzzles", watch_args.puzzles_dir,
                    "Watch the stubs in this directory instead of puzzles/");
  watch->add_option("--interval", watch_interval_ms, "Milliseconds between two looks at the files")
      ->check(CLI::Range(20, 60000))
      ->capture_default_str();
  watch->add_flag("--once", watch_once, "Stop after the first check that a change started");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  if (*list) return run_list(list_dir);
  if (*show) return run_show(show_options);
  if (*check) return run_check(args);
  if (*bench) return tp::bench::run_bench(bench_args);
  if (*hint) return run_hint(hint_name, hint_number);
  if (*watch) return run_watch(watch_args, watch_name, watch_interval_ms, watch_once);
  if (*grade) return tp::grade::run_grade(grade_args);
  if (*sandbox) return run_sandbox_status();
  return run_usage();
}
