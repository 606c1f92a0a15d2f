#include "checker/bench.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "checker/bench_cases.hpp"
#include "checker/bench_catalogue.hpp"
#include "checker/bench_module_abi.hpp"
#include "checker/bench_report.hpp"
#include "checker/gpu.hpp"
#include "checker/modules.hpp"
#include "checker/registry.hpp"
#include "checker/svg_plot.hpp"

namespace tp::bench {

namespace {

constexpr int exit_fail = 1;
constexpr int exit_usage = 2;

// The GPU benchmark module, null in a build without the CUDA backend. A value rather than a
// preprocessor branch, so every build compiles (and uses) all of the code that runs it.
#ifdef TILEPUZZLES_BENCH_GPU_MODULE
constexpr const char* gpu_module = TILEPUZZLES_BENCH_GPU_MODULE;
#else
constexpr const char* gpu_module = nullptr;
#endif

int usage(const std::string& message) {
  std::cerr << "tilepuzzles bench: " << message << "\n";
  return exit_usage;
}

std::string benchmarked_list() {
  std::string out;
  for (const auto& e : catalogue)
    if (e.pending.empty()) out += (out.empty() ? "" : ", ") + std::string(e.puzzle);
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The commit the numbers belong to: $TILEPUZZLES_COMMIT, a COMMIT file (a copy of the tree made
// for a GPU machine), or git.
std::string commit() {
  if (const char* c = std::getenv("TILEPUZZLES_COMMIT"); c && *c) return c;
  const std::string source = TILEPUZZLES_SOURCE_DIR;
  std::ifstream file(source + "/COMMIT");
  std::string line;
  if (file && std::getline(file, line) && !line.empty()) return trim(line);
  std::string out;
  if (FILE* git = ::popen(("git -C '" + source + "' rev-parse --short HEAD 2>/dev/null").c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, git)) out += buf;
    ::pclose(git);
  }
  out = trim(out);
  return out.empty() ? "unknown" : out;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  return static_cast<bool>(f);
}

struct collector {
  const bench_args* args;
  run_info info;
  std::vector<row> rows;
  spec_cases cases;
  bool terminal = ::isatty(2) != 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool write_failed = false;

  void clear_progress() {
    if (terminal) std::fprintf(stderr, "\r\033[K");
  }
  void save() {
    if (!args->csv_file.empty() && !write_file(args->csv_file, csv(rows, info))) write_failed = true;
  }
};

void on_started(void* context, const char* gpu, double ceiling_bytes) {
  auto& c = *static_cast<collector*>(context);
  c.info.gpu = gpu;
  std::printf("GPU: %s; median of %d samples after %d warm-up launches, CUDA events around each "
              "sample (where one launch takes under 0.1 ms, a sample is one replay of a CUDA graph of "
              "`batch` launches, as the PyTorch and Triton baselines are timed); "
              "inputs rotated over at least 4x the L2 cache\n",
              gpu, c.args->runs, c.args->warmup);
  std::fflush(stdout);
  (void)ceiling_bytes;
}

void on_progress(void* context, const char* what, int done, int total) {
  auto& c = *static_cast<collector*>(context);
  if (!c.terminal) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
  std::fprintf(stderr, "\r\033[K[%6.1f s] %d of %d: %s", s, done + 1, total, what);
  std::fflush(stderr);
}

void on_row(void* context, const tp_bench_row* r) {
  auto& c = *static_cast<collector*>(context);
  row out;
  out.benchmark = r->benchmark;
  out.variant = r->variant;
  out.size = r->size;
  out.dtype = r->dtype;
  out.x = r->x;
  out.x_name = r->x_name;
  out.time_ms = r->time_ms;
  out.min_ms = r->min_ms;
  out.max_ms = r->max_ms;
  out.runs = r->runs;
  out.launches_per_sample = r->launches_per_sample;
  out.graph = r->graph != 0;
  out.bytes = r->bytes;
  out.flops = r->flops;
  out.max_error = r->max_error;
  out.problem = r->problem ? r->problem : "";
  out.causal = r->causal ? r->causal : "";
  const std::string out_table = table_of(out.benchmark);
  const bool first_of_table = [&] {
    for (const auto& seen : c.rows)
      if (table_of(seen.benchmark) == out_table) return false;
    return true;
  }();
  // A puzzle's table is printed when its last row is in, that is when the next puzzle starts.
  if (first_of_table && !c.rows.empty() && c.rows.back().benchmark != "copy") {
    c.clear_progress();
    std::printf("%s\n", table(table_of(c.rows.back().benchmark), c.rows, c.info).c_str());
  }
  c.rows.push_back(out);
  if (out.benchmark == "copy" && out.timed()) {
    c.info.ceiling_gbps = out.gbps();
    c.clear_progress();
    std::printf("ceiling: device-to-device copy of %s fp32 (cudaMemcpyAsync): %.4f ms, %.0f GB/s\n\n",
                out.size.c_str(), out.time_ms, out.gbps());
  } else if (first_of_table) {
    c.clear_progress();
    const auto* e = find_benchmark(out_table);
    std::printf("== %s: %s; %s count %s\n", out_table.c_str(),
                e ? std::string(e->sweep).c_str() : "", out.flops > 0 ? "TFLOP/s" : "GB/s",
                e ? std::string(e->measure).c_str() : "");
  }
  std::fflush(stdout);
  c.save();
}

const tp_bench_case* on_make_case(void* context, const char* puzzle, const int* sizes,
                                  int size_count, const int* blocks, int block_count,
                                  const char** problem) {
  return static_cast<collector*>(context)->cases.make(puzzle, sizes, size_count, blocks,
                                                      block_count, problem);
}

double on_judge(void* context, const void* const* outputs, const char** problem) {
  return static_cast<collector*>(context)->cases.judge(outputs, problem);
}

}  // namespace

int run_bench(const bench_args& args) {
  std::vector<std::string> chosen;
  for (const auto& name : args.puzzles) {
    const benchmark_entry* entry = find_benchmark(name);
    if (!entry) {
      const puzzle_spec* p = find_puzzle(name);
      if (!p) return usage("unknown puzzle '" + name + "'. Benchmarked puzzles: " + benchmarked_list());
      entry = find_benchmark(p->id);
      if (!entry)
        return usage("puzzle " + p->id + " has no GPU benchmark. Benchmarked puzzles: " +
                     benchmarked_list());
    }
    if (!entry->pending.empty())
      return usage(std::string(entry->puzzle) + " is not benchmarked yet: " +
                   std::string(entry->pending) + ". Benchmarked puzzles: " + benchmarked_list());
    const std::string id(entry->puzzle);
    if (std::find(chosen.begin(), chosen.end(), id) == chosen.end()) chosen.push_back(id);
  }
  if (chosen.empty())
    for (const auto& e : catalogue)
      if (e.pending.empty()) chosen.emplace_back(e.puzzle);

  // A file that cannot be written is found before minutes of measuring, not after.
  for (const std::string* file : {&args.csv_file, &args.plot_file}) {
    if (file->empty()) continue;
    std::error_code ignored;
    const bool existed = std::filesystem::exists(*file, ignored);
    if (!std::ofstream(*file, std::ios::app))
      return usage("cannot write " + *file + ": check that its folder exists and is writable");
    if (!existed) std::filesystem::remove(*file, ignored);
  }

  const gpu::device_status device = gpu::probe();
  if (!device.available) {
    std::cerr << "tilepuzzles bench: the benchmarks time the solutions on an NVIDIA GPU, and "
                 "there is none to run on: "
              << device.reason
              << ". Run it on a machine with an NVIDIA GPU and its driver, in a build configured "
                 "with -DTILEPUZZLES_CUDA=ON (bench/README.md); 'tilepuzzles check' runs every "
                 "puzzle in the simulator without one.\n";
    return exit_fail;
  }
  if (!gpu_module) {
    std::cerr << "tilepuzzles bench: this build has no GPU benchmark module (it was built without "
                 "the CUDA backend); configure with -DTILEPUZZLES_CUDA=ON and rebuild.\n";
    return exit_fail;
  }
  const std::string module = gpu_module;
  // The module is not part of the default build: its nvcc units take minutes that no test and no
  // learner without a GPU should wait for. It is brought up to date here, as `check` does with
  // the puzzle modules (a no-op when nothing changed).
  const std::string build_log = std::string(TILEPUZZLES_BINARY_DIR) + "/bench-build.log";
  if (!std::filesystem::exists(module))
    std::cerr << "tilepuzzles bench: building the GPU benchmark module (nvcc; the first build takes "
                 "several minutes, its output goes to "
              << build_log << ")\n";
  if (build_target("tilepuzzles_bench_gpu_module", build_log) != 0) {
    std::cerr << "tilepuzzles bench: the GPU benchmark module did not build; the compiler's output "
                 "is in "
              << build_log << "\n";
    return exit_fail;
  }
  void* handle = ::dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    std::cerr << "tilepuzzles bench: the GPU benchmark module " << module
              << " could not be loaded: " << (why ? why : "unknown error")
              << ". Build it: cmake --build build --target tilepuzzles_bench_gpu_module\n";
    return exit_fail;
  }
  auto run = reinterpret_cast<tp_bench_run_fn>(::dlsym(handle, "tilepuzzles_bench_gpu_run"));
  if (!run) {
    std::cerr << "tilepuzzles bench: " << module
              << " is not a GPU benchmark module of this version. Rebuild the project.\n";
    return exit_fail;
  }

  collector c;
  c.args = &args;
  c.info.commit = commit();
  c.info.command = args.command_line;
  std::vector<const char*> names;
  for (const auto& id : chosen) names.push_back(id.c_str());
  const tp_bench_request request{names.data(), static_cast<int>(names.size()), args.warmup, args.runs};
  const tp_bench_host host{&c, on_started, on_progress, on_row, on_make_case, on_judge};
  char error[1024] = "";
  const int status = run(tp_bench_abi_version, &request, &host, error, sizeof error);
  c.clear_progress();
  if (!c.rows.empty() && c.rows.back().benchmark != "copy")
    std::printf("%s\n", table(table_of(c.rows.back().benchmark), c.rows, c.info).c_str());
  int failed = 0;
  for (const auto& r : c.rows) failed += r.timed() ? 0 : 1;
  if (!args.plot_file.empty() && !write_file(args.plot_file, svg_plot(c.rows, c.info)))
    c.write_failed = true;
  if (!args.csv_file.empty()) std::printf("CSV: %s\n", args.csv_file.c_str());
  if (!args.plot_file.empty()) std::printf("plot: %s\n", args.plot_file.c_str());
  if (c.write_failed) {
    std::cerr << "tilepuzzles bench: could not write " << args.csv_file << " " << args.plot_file
              << "\n";
    return exit_fail;
  }
  if (status != 0) {
    std::cerr << "tilepuzzles bench: the GPU failed: " << error << "\n";
    return exit_fail;
  }
  if (failed) {
    std::cerr << "tilepuzzles bench: " << failed
              << " kernel(s) did not match their reference; they were not timed (above).\n";
    return exit_fail;
  }
  return 0;
}

}  // namespace tp::bench
