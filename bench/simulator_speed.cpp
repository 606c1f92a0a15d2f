// How fast the simulator runs the reference solutions with every check on (bounds, poison,
// uninitialized reads, races, counters), on the seven workloads of issue 10, against Triton's
// interpreter on the same kernels (bench/triton_interpreter.py).
//
//   ./build/tilepuzzles_bench_simulator                              # all seven workloads
//   ./build/tilepuzzles_bench_simulator --interpreter interp.csv     # ratios to a run on this host
//   ./build/tilepuzzles_bench_simulator matmul-512 --runs 21 --csv sim.csv
//
// Each workload: the checker's inputs (the puzzle's spec, seed 0), one untimed launch whose
// output is compared with the spec's reference and whose counters must meet the puzzle's
// budgets, then timed launches (wall clock, one launch each, including the creation of the
// checked buffers and their shadow state, as the checker runs them) and their median.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sched.h>
#include <time.h>

#include <CLI/CLI.hpp>

#include "checker/check.hpp"
#include "checker/registry.hpp"
#include "checker/sim_launch.hpp"
#include "solutions/flash_attention_simple.hpp"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/matmul.hpp"

namespace {

struct workload {
  const char* name;     // as in bench/triton_interpreter.py
  const char* puzzle;   // the puzzle id
  std::vector<int> sizes;
  std::vector<int> blocks;
  double issue_interpreter_s;  // issue 10's table: Triton 3.6's interpreter on an H100 host's CPU
  tp::sim_launcher launch;
};

// Issue 10's table, in its order. The interpreter's figures were measured on the CPU of an H100
// machine, one core; ratios to them are only indicative on another host (use --interpreter).
const std::vector<workload>& workloads() {
  using namespace solutions;
  static const std::vector<workload> all = {
      {"2loop-4x200", "long-softmax-2loop", {4, 200}, {1, 32}, 0.180,
       &tp::sim_launch<LongSoftmax2Loop<1, 32>>},
      {"2loop-64x4096", "long-softmax-2loop", {64, 4096}, {1, 128}, 10.9,
       &tp::sim_launch<LongSoftmax2Loop<1, 128>>},
      {"3loop-256x8192", "long-softmax-3loop", {256, 8192}, {4, 256}, 18.9,
       &tp::sim_launch<LongSoftmax3Loop<4, 256>>},
      {"2loop-256x8192", "long-softmax-2loop", {256, 8192}, {4, 256}, 11.3,
       &tp::sim_launch<LongSoftmax2Loop<4, 256>>},
      {"flash-1024x1024", "flash-attention-simple", {1024, 1024}, {32, 64}, 1.85,
       &tp::sim_launch<FlashAttentionSimple<32, 64>>},
      {"matmul-256", "matmul", {256, 256, 1, 256}, {32, 32, 32}, 1.24,
       &tp::sim_launch<Matmul<32, 32, 32>>},
      {"matmul-512", "matmul", {512, 512, 1, 512}, {64, 64, 64}, 1.31,
       &tp::sim_launch<Matmul<64, 64, 64>>},
  };
  return all;
}

constexpr double target_ratio = 300;

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto v = line.substr(line.find(':') + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "unknown CPU";
}

// ---------------------------------------------------------------------------------------------
// The interpreter's rows, from the CSV or JSON of bench/triton_interpreter.py (bench/README.md).

struct interpreter_row {
  std::string name, puzzle, shape, blocks;
  double median_s = 0;
  std::string host_cpu;
};

struct bad_file : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream s(line);
  while (std::getline(s, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double number_of(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw bad_file("`" + what + "` is not a positive number: \"" + text + "\"");
}

interpreter_row row_from(const std::map<std::string, std::string>& fields) {
  interpreter_row r;
  auto get = [&](const char* key) {
    auto it = fields.find(key);
    if (it == fields.end()) throw bad_file(std::string("a row has no `") + key + "`");
    return it->second;
  };
  r.name = get("name");
  r.puzzle = get("puzzle");
  r.shape = get("shape");
  r.blocks = get("blocks");
  r.median_s = number_of(get("median_s"), "median_s");
  if (auto it = fields.find("host_cpu"); it != fields.end()) r.host_cpu = it->second;
  return r;
}

std::vector<interpreter_row> read_csv(std::istream& in) {
  std::string line;
  std::vector<std::string> header;
  std::vector<interpreter_row> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fields = split_commas(line);
    if (header.empty()) {
      header = fields;
      continue;
    }
    if (fields.size() != header.size())
      throw bad_file("a row has " + std::to_string(fields.size()) + " fields, the header " +
                     std::to_string(header.size()));
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < header.size(); ++i) m[header[i]] = fields[i];
    rows.push_back(row_from(m));
  }
  if (header.empty()) throw bad_file("it is empty");
  return rows;
}

// The JSON the script writes: an array of flat objects whose values are strings or numbers.
class json_reader {
 public:
  explicit json_reader(std::string text) : s_(std::move(text)) {}

  std::vector<interpreter_row> rows() {
    std::vector<interpreter_row> out;
    expect('[');
    if (peek() == ']') return ++i_, out;
    do out.push_back(row_from(object()));
    while (accept(','));
    expect(']');
    return out;
  }

 private:
  std::map<std::string, std::string> object() {
    std::map<std::string, std::string> m;
    expect('{');
    if (peek() == '}') return ++i_, m;
    do {
      auto key = string();
      expect(':');
      m[key] = peek() == '"' ? string() : scalar();
    } while (accept(','));
    expect('}');
    return m;
  }
  std::string string() {
    expect('"');
    std::string v;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      v += s_[i_++];
    }
    expect('"');
    return v;
  }
  std::string scalar() {
    skip();
    const auto start = i_;
    while (i_ < s_.size() && !std::strchr(",}] \t\r\n", s_[i_])) ++i_;
    if (i_ == start) fail("a value");
    return s_.substr(start, i_ - start);
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    skip();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("'") + c + "'");
  }
  [[noreturn]] void fail(const std::string& what) {
    throw bad_file("expected " + what + " at character " + std::to_string(i_));
  }
  std::string s_;
  std::size_t i_ = 0;
};

std::vector<interpreter_row> read_interpreter(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw bad_file("cannot open it");
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  const auto first = all.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && all[first] == '[') return json_reader(all).rows();
  std::istringstream lines(all);
  return read_csv(lines);
}

const interpreter_row* find_row(const std::vector<interpreter_row>& rows, const workload& w) {
  for (const auto& r : rows)
    if (r.name == w.name ||
        (r.puzzle == w.puzzle && r.shape == joined(w.sizes) && r.blocks == joined(w.blocks)))
      return &r;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Measuring

struct measurement {
  std::vector<double> ms;      // wall clock, sorted
  std::vector<double> cpu_ms;  // this thread's CPU time, sorted
  double median() const { return ms[ms.size() / 2]; }
  double cpu_median() const { return cpu_ms[cpu_ms.size() / 2]; }
};

// CPU time of this thread: on a machine shared with other work, wall time includes the time
// other processes took the core.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// The launch request of a workload on fresh copies of the case's tensors.
tp::launch_request request_for(const tp::puzzle_spec& spec, const workload& w,
                               std::vector<tp::tensor>& tensors) {
  tp::launch_request request;
  request.grid = spec.grid(w.sizes, w.blocks);
  request.tensors = &tensors;
  request.sizes = w.sizes;
  return request;
}

// Runs the workload once and checks it as the checker would; returns what went wrong.
std::optional<std::string> check_once(const tp::puzzle_spec& spec, const workload& w,
                                      const tp::case_data& data) {
  auto tensors = data.tensors;
  const auto request = request_for(spec, w, tensors);
  const auto run = w.launch(request, {});
  if (run.result.error) return run.result.error->message;
  if (auto d = tp::compare_outputs(spec, tensors, data.expected, w.name)) return d->message;
  const tp::run_facts facts{w.sizes, w.blocks, request.grid, run.buffers};
  for (const auto& b : spec.budgets)
    if (auto complaint = b.check(facts)) return "efficiency-budget: " + *complaint;
  return std::nullopt;
}

measurement time_launches(const tp::puzzle_spec& spec, const workload& w,
                          const tp::case_data& data, int runs, double min_seconds) {
  measurement m;
  double total = 0;
  auto tensors = data.tensors;
  const auto request = request_for(spec, w, tensors);
  while (static_cast<int>(m.ms.size()) < runs || (total < min_seconds && m.ms.size() < 10001)) {
    const double cpu_start = thread_cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    const auto run = w.launch(request, {});
    const auto stop = std::chrono::steady_clock::now();
    const double cpu_stop = thread_cpu_ms();
    if (run.result.error) break;  // cannot happen: the same launch was clean in check_once
    const double ms = std::chrono::duration<double, std::milli>(stop - start).count();
    m.ms.push_back(ms);
    m.cpu_ms.push_back(cpu_stop - cpu_start);
    total += ms / 1000.0;
  }
  std::sort(m.ms.begin(), m.ms.end());
  std::sort(m.cpu_ms.begin(), m.cpu_ms.end());
  return m;
}

std::string time_text(double ms) {
  char buf[32];
  if (ms < 1) std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  else if (ms < 100) std::snprintf(buf, sizeof buf, "%.2f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

std::string ratio_text(double interpreter_s, double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fx", interpreter_s * 1000.0 / ms);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The simulator on issue 10's workloads, every check on, against Triton's "
               "interpreter (bench/triton_interpreter.py)"};
  std::vector<std::string> names;
  int runs = 11;
  double min_seconds = 0.5;
  std::string interpreter_path, csv_path;
  int cpu = -1;
  bool list = false;
  app.add_option("workloads", names, "workloads to run (default: all; --list names them)");
  app.add_option("--runs", runs, "timed launches per workload, at least (default 11)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--min-time", min_seconds,
                 "keep launching a workload until its timed launches add up to this many seconds "
                 "(default 0.5; at most 10001 launches)")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--interpreter", interpreter_path,
                 "the CSV or JSON of bench/triton_interpreter.py measured on this host: print "
                 "ratios to its medians");
  app.add_option("--csv", csv_path, "write one row per workload as CSV");
  app.add_option("--cpu", cpu, "pin the process to CPU core N");
  app.add_flag("--list", list, "list the workloads and exit");
  CLI11_PARSE(app, argc, argv);

  if (list) {
    for (const auto& w : workloads())
      std::printf("%-16s %-24s sizes %-14s blocks %s\n", w.name, w.puzzle, joined(w.sizes).c_str(),
                  joined(w.blocks).c_str());
    return 0;
  }
  std::vector<const workload*> chosen;
  for (const auto& n : names) {
    auto it = std::find_if(workloads().begin(), workloads().end(),
                           [&](const workload& w) { return n == w.name; });
    if (it == workloads().end()) {
      std::string all;
      for (const auto& w : workloads()) all += std::string(all.empty() ? "" : ", ") + w.name;
      std::fprintf(stderr, "unknown workload %s; the workloads are: %s\n", n.c_str(), all.c_str());
      return 2;
    }
    chosen.push_back(&*it);
  }
  if (chosen.empty())
    for (const auto& w : workloads()) chosen.push_back(&w);

  std::vector<interpreter_row> interpreter;
  if (!interpreter_path.empty()) {
    try {
      interpreter = read_interpreter(interpreter_path);
    } catch (const bad_file& e) {
      std::fprintf(stderr,
                   "--interpreter %s: %s. Give the --csv or --json file that "
                   "bench/triton_interpreter.py wrote (format: bench/README.md).\n",
                   interpreter_path.c_str(), e.what());
      return 2;
    }
  }
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "cannot pin to CPU core %d\n", cpu);
      return 2;
    }
  }

  std::printf("tilepuzzles simulator, every check on (bounds, poison, uninitialized reads, races, "
              "counters); the reference solutions on the checker's inputs\n");
  std::printf("kernels compiled with %s flags\n", TILEPUZZLES_BENCH_KERNEL_FLAGS);
  std::printf("host CPU: %s%s\n", host_cpu().c_str(),
              cpu >= 0 ? ("; pinned to core " + std::to_string(cpu)).c_str() : "");
  if (!interpreter.empty())
    std::printf("interpreter: %s (%s)\n", interpreter_path.c_str(),
                interpreter.front().host_cpu.empty() ? "host not given"
                                                     : interpreter.front().host_cpu.c_str());
  std::printf("%-16s %-22s %-13s %-8s %10s %10s %10s %10s %6s  %-19s%s\n", "workload", "puzzle",
              "shape", "blocks", "median", "min", "max", "cpu median", "runs", "vs issue 10's interp",
              interpreter.empty() ? "" : "  vs interpreter (file)");

  std::FILE* csv = nullptr;
  if (!csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "cannot write %s\n", csv_path.c_str());
      return 2;
    }
    std::fprintf(csv, "name,puzzle,shape,blocks,median_ms,min_ms,max_ms,cpu_median_ms,runs,"
                      "issue_interpreter_s,issue_ratio,interpreter_s,ratio,host_cpu\n");
  }

  int failed = 0, below_target = 0;
  for (const workload* w : chosen) {
    const tp::puzzle_spec* spec = tp::find_puzzle(w->puzzle);
    if (!spec) {
      std::printf("%-16s the checker has no puzzle %s\n", w->name, w->puzzle);
      ++failed;
      continue;
    }
    const auto data = tp::make_case(*spec, w->sizes, 0, 0);
    if (auto problem = check_once(*spec, *w, data)) {
      std::printf("%-16s FAILED: %s\n", w->name, problem->c_str());
      ++failed;
      continue;
    }
    const auto m = time_launches(*spec, *w, data, runs, min_seconds);
    const double median = m.median();
    const interpreter_row* row = find_row(interpreter, *w);
    const double ratio_issue = w->issue_interpreter_s * 1000.0 / median;
    std::string same_host;
    if (!interpreter.empty()) {
      if (row) {
        const double r = row->median_s * 1000.0 / median;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f s: %.0fx", row->median_s, r);
        same_host = buf;
        if (r < target_ratio) ++below_target, same_host += " (below 300x)";
      } else {
        same_host = "not in the file";
      }
    } else if (ratio_issue < target_ratio) {
      ++below_target;
    }
    char issue[64];
    std::snprintf(issue, sizeof issue, "%.3g s: %s", w->issue_interpreter_s,
                  ratio_text(w->issue_interpreter_s, median).c_str());
    std::printf("%-16s %-22s %-13s %-8s %10s %10s %10s %10s %6zu  %-19s%s%s\n", w->name, w->puzzle,
                joined(w->sizes).c_str(), joined(w->blocks).c_str(), time_text(median).c_str(),
                time_text(m.ms.front()).c_str(), time_text(m.ms.back()).c_str(),
                time_text(m.cpu_median()).c_str(), m.ms.size(), issue,
                same_host.empty() ? "" : "  ", same_host.c_str());
    std::fflush(stdout);
    if (csv) {
      std::fprintf(csv, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%zu,%g,%.1f,", w->name, w->puzzle,
                   joined(w->sizes).c_str(), joined(w->blocks).c_str(), median, m.ms.front(),
                   m.ms.back(), m.cpu_median(), m.ms.size(), w->issue_interpreter_s, ratio_issue);
      if (row) std::fprintf(csv, "%g,%.1f", row->median_s, row->median_s * 1000.0 / median);
      else std::fprintf(csv, ",");
      std::string cpu_name = host_cpu();
      std::replace(cpu_name.begin(), cpu_name.end(), ',', ' ');
      std::fprintf(csv, ",%s\n", cpu_name.c_str());
      std::fflush(csv);
    }
  }
  if (csv) std::fclose(csv);

  const char* against = interpreter.empty()
                            ? "issue 10's interpreter figures (measured on another host)"
                            : "the interpreter measured on this host";
  if (failed) std::printf("FAILED: %d workloads did not run clean\n", failed);
  else if (below_target)
    std::printf("BELOW TARGET: %d rows are under %.0fx %s\n", below_target, target_ratio, against);
  else std::printf("ok: every row is at least %.0fx %s\n", target_ratio, against);
  return failed ? 1 : 0;
}
