#include "checker/grade.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "checker/isolate.hpp"
#include "checker/modules.hpp"
#include "checker/progress.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/sha256.hpp"

#ifndef TILEPUZZLES_BINARY_DIR
#error "checker/grade.cpp needs the build's definitions (see CMakeLists.txt)"
#endif

namespace tp::grade {

namespace {

constexpr int exit_graded = 0;
constexpr int exit_not_graded = 1;
constexpr int exit_usage = 2;

// ---------------------------------------------------------------------------------------------
// Files

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes a file whole (through a temporary and a rename): a reader never sees half of it.
bool write_file(const std::string& path, const std::string& text) {
  const std::string part = path + ".part" + std::to_string(::getpid());
  {
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    if (!(out << text)) return false;
  }
  return std::rename(part.c_str(), path.c_str()) == 0;
}

std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

std::string strip_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// A student's result for one puzzle, as the child that checked it records it

struct result {
  status verdict = status::failed;
  std::string line, details, json;
  bool cached = false;
  // The other files of the student's copy that the stub's compile read (its helper headers),
  // each with its hash: a cached verdict holds only while they are the same.
  std::vector<std::pair<std::string, std::string>> helpers;

  std::string kind() const {
    if (verdict == status::solved) return "";
    if (verdict == status::not_solved) return tl::sim::kind::not_solved;
    return kind_of_report_line(line);
  }
};

void put(std::string& out, const std::string& s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

bool get(const std::string& in, std::size_t& at, std::string& s) {
  const std::size_t colon = in.find(':', at);
  if (colon == std::string::npos) return false;
  std::size_t n = 0;
  for (std::size_t i = at; i < colon; ++i) {
    if (in[i] < '0' || in[i] > '9') return false;
    n = n * 10 + static_cast<std::size_t>(in[i] - '0');
  }
  if (colon + 1 + n > in.size()) return false;
  s = in.substr(colon + 1, n);
  at = colon + 1 + n;
  return true;
}

std::string encode(const result& r) {
  std::string out;
  put(out, std::to_string(static_cast<int>(r.verdict)));
  put(out, r.line);
  put(out, r.details);
  put(out, r.json);
  put(out, r.cached ? "1" : "0");
  put(out, std::to_string(r.helpers.size()));
  for (const auto& [name, hash] : r.helpers) {
    put(out, name);
    put(out, hash);
  }
  return out;
}

bool decode(const std::string& in, std::size_t& at, result& r) {
  std::string verdict, cached, count;
  if (!get(in, at, verdict) || !get(in, at, r.line) || !get(in, at, r.details) ||
      !get(in, at, r.json) || !get(in, at, cached) || !get(in, at, count))
    return false;
  r.verdict = static_cast<status>(std::atoi(verdict.c_str()));
  r.cached = cached == "1";
  r.helpers.clear();
  for (int k = std::atoi(count.c_str()); k > 0; --k) {
    std::string name, hash;
    if (!get(in, at, name) || !get(in, at, hash)) return false;
    r.helpers.emplace_back(name, hash);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The cache of verdicts, by the stub's content

// What a verdict depends on besides the stub: the checker and the project's headers as built,
// the compiler, and the options of the check. Any change makes every cached verdict a miss.
std::string checker_identity(const grade_args& args) {
  std::string parts;
  for (const std::string& file : {sandbox::program(), std::string(TILEPUZZLES_RUNTIME)})
    parts += file + " " + sha256_of_file(file).value_or("?") + "\n";
  const std::string root = TILEPUZZLES_SOURCE_DIR;
  std::vector<std::string> pending = {"tile", "simulator", "checker", "cuda"};
  while (!pending.empty()) {
    const std::string rel = pending.back();
    pending.pop_back();
    for (const std::string& name : entries_of(root + "/" + rel)) {
      const std::string path = rel + "/" + name;
      if (is_directory(root + "/" + path)) pending.push_back(path);
      else parts += path + " " + sha256_of_file(root + "/" + path).value_or("?") + "\n";
    }
  }
  struct stat st {};
  ::stat(TILEPUZZLES_CXX_COMPILER, &st);
  parts += std::string(TILEPUZZLES_CXX_COMPILER) + " " + std::to_string(st.st_size) + " " +
           std::to_string(st.st_mtim.tv_sec) + "\n";
  parts += "seed " + std::to_string(args.seed) + " timeout " + number_text(args.timeout) +
           " memory " + std::to_string(args.memory_mb) + " sandbox " +
           (args.sandbox ? "on" : "off") + "\n";
  return sha256_hex(parts);
}

std::string cache_dir() { return std::string(TILEPUZZLES_BINARY_DIR) + "/grade-cache"; }

// A report names the student's copy by its path; the cache keeps it as a marker, so that another
// copy with the same stub gets the report with its own path.
struct copy_paths {
  std::string absolute;  // the copy as the compiler saw it (kernel lines in diagnostics)
  std::string shown;     // as the reports show it (the directory as given)

  bool cacheable() const {
    for (const std::string& p : {absolute, shown})
      if (p.find_first_of("\"\\\x01\x02") != std::string::npos) return false;
    return true;
  }
  std::string to_markers(std::string text) const {
    return replace_all(replace_all(text, absolute + "/", "\x01/"), shown + "/", "\x02/");
  }
  std::string from_markers(std::string text) const {
    return replace_all(replace_all(text, "\x01/", absolute + "/"), "\x02/", shown + "/");
  }
};

std::optional<result> cache_lookup(const std::string& key, const copy_paths& copy) {
  const auto text = read_file(cache_dir() + "/" + key);
  if (!text) return std::nullopt;
  result r;
  std::size_t at = 0;
  if (!decode(*text, at, r)) return std::nullopt;
  for (const auto& [name, hash] : r.helpers)
    if (sha256_of_file(copy.absolute + "/" + name) != hash) return std::nullopt;
  r.line = copy.from_markers(r.line);
  r.details = copy.from_markers(r.details);
  r.json = copy.from_markers(r.json);
  r.cached = true;
  return r;
}

void cache_store(const std::string& key, const result& r, const copy_paths& copy) {
  ::mkdir(cache_dir().c_str(), 0777);
  result kept = r;
  kept.line = copy.to_markers(r.line);
  kept.details = copy.to_markers(r.details);
  kept.json = copy.to_markers(r.json);
  write_file(cache_dir() + "/" + key, encode(kept));
}

// ---------------------------------------------------------------------------------------------
// One student's copy, in a child process

struct student {
  std::string name;  // the subdirectory's name
  std::string dir;   // the stubs' directory, as given (SUBMISSIONS/name, or .../name/puzzles)
};

struct plan {
  grade_args args;
  std::vector<const puzzle_spec*> puzzles;  // the graded ones, in curriculum order
  std::vector<double> points;               // each one's points
  std::string identity;                     // empty without the cache
  int build_jobs = 1;
  std::string records_dir;
};

isolated_report not_checked(const puzzle_spec& spec, const module_options& modules,
                            tl::sim::diagnostic problem) {
  puzzle_report r;
  r.spec = &spec;
  r.which = impl::stub;
  r.kernel_file = shown_kernel_file(spec, impl::stub, modules);
  r.status = status::failed;
  r.diagnostics.push_back(std::move(problem));
  return summarize(r);
}

// Checks one copy (the verdicts the cache has are taken from it) and writes its results.
void grade_copy(const student& s, const plan& p) {
  module_options modules;
  modules.puzzles_dir = s.dir;
  modules.sandbox = p.args.sandbox;
  modules.memory_mb = p.args.memory_mb;
  modules.build_jobs = p.build_jobs;
  check_options options;
  options.which = impl::stub;
  options.modules = modules;
  options.seed = p.args.seed;
  options.simulator_modules_built = true;
  const copy_paths copy{stubs_dir(modules), strip_trailing_slashes(s.dir)};
  const bool cache = !p.identity.empty() && copy.cacheable();

  std::vector<result> results(p.puzzles.size());
  std::vector<std::string> keys(p.puzzles.size());
  std::vector<module_ref> refs;
  std::vector<std::size_t> unchecked;
  for (std::size_t i = 0; i < p.puzzles.size(); ++i) {
    const module_ref ref{p.puzzles[i], impl::stub, backend::simulator};
    const auto content = read_file(files_of(ref, modules).kernel_file);
    if (cache && content) {
      keys[i] = sha256_hex(p.identity + "\n" + p.puzzles[i]->id + "\n" + *content);
      if (auto hit = cache_lookup(keys[i], copy)) {
        results[i] = *hit;
        continue;
      }
    }
    refs.push_back(ref);
    unchecked.push_back(i);
  }
  std::vector<std::string> notes;
  const auto built = build_modules(refs, modules, &notes);
  for (std::size_t k = 0; k < unchecked.size(); ++k) {
    const std::size_t i = unchecked[k];
    const puzzle_spec& spec = *p.puzzles[i];
    isolated_report r = built[k] ? not_checked(spec, modules, *built[k])
                                 : check_isolated(spec, options, p.args.timeout);
    if (!notes[k].empty()) add_note(r, spec, shown_kernel_file(spec, impl::stub, modules), notes[k]);
    result& out = results[i];
    out.verdict = r.status;
    out.line = r.line;
    out.details = r.details;
    out.json = r.json;
    if (built[k]) continue;
    const std::string kernel = files_of(refs[k], modules).kernel_file;
    for (const std::string& read : module_dependencies(refs[k], modules))
      if (read != kernel && read.rfind(copy.absolute + "/", 0) == 0)
        out.helpers.emplace_back(read.substr(copy.absolute.size() + 1),
                                 sha256_of_file(read).value_or("?"));
    // A compile error's report names its log in this copy's build: not for another copy.
    if (!keys[i].empty() && out.kind() != tl::sim::kind::compile_error)
      cache_store(keys[i], out, copy);
  }
  std::string record;
  for (const result& r : results) record += encode(r);
  write_file(p.records_dir + "/" + s.name, record);
}

// ---------------------------------------------------------------------------------------------
// Outputs

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  return "\"" + replace_all(s, "\"", "\"\"") + "\"";
}

std::string xml_text(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 allows no other control characters.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += '?';
        else out += c;
    }
  }
  return out;
}

// The first line of a failed puzzle's diagnostic, without its indent: "wrong-result: z differs
// from the reference in 3 of 64 elements".
std::string first_diagnostic_line(const result& r) {
  std::istringstream in(r.details);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("--- ", 0) == 0) continue;
    const std::size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos) return line.substr(start);
  }
  return r.verdict == status::not_solved ? "not-solved: the kernel stores nothing yet" : r.kind();
}

// What one puzzle's report says, for a grader's or a student's eyes: the verdict's line and the
// diagnostic, without the advice a learner's check prints.
std::string puzzle_output(const result& r) {
  std::string line = r.line;
  const std::size_t start = line.find_first_not_of(' ');
  if (start != std::string::npos) line = line.substr(start);
  return line + (r.details.empty() ? "" : "\n" + r.details);
}

struct graded_student {
  student who;
  std::vector<result> results;
  bool complete = false;  // its child recorded every puzzle
  double score = 0, max_score = 0;
  int solved = 0;
  double seconds = 0;
};

std::string student_text_report(const graded_student& g, const plan& p) {
  std::string out = "Grading " + g.who.name + " (" + strip_trailing_slashes(g.who.dir) + "/), seed " +
                    std::to_string(p.args.seed) + ", program order all" +
                    (p.args.sandbox ? ", in the sandbox" : ", without a sandbox") + "\n\n";
  for (const result& r : g.results) out += r.line + "\n";
  bool header = false;
  for (const result& r : g.results) {
    if (r.details.empty()) continue;
    if (!header) out += "\n";
    header = true;
    out += r.details;
  }
  // Appended piece by piece: `"\n" + std::to_string(...)` draws a wrong -Wrestrict from g++ 12
  // (GCC bug 105329).
  out += '\n';
  out += std::to_string(g.solved) + " of " + std::to_string(g.results.size()) +
         " puzzles solved: " + number_text(g.score) + " of " + number_text(g.max_score) +
         " points.\n";
  return out;
}

std::string student_json_report(const graded_student& g) {
  std::string out = "[";
  for (std::size_t i = 0; i < g.results.size(); ++i)
    out += std::string(i ? "," : "") + "\n  " + g.results[i].json;
  return out + "\n]\n";
}

// Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
// the score, an output for the whole submission, and one test per puzzle with its score,
// max_score, status and output.
std::string gradescope_results(const graded_student& g, const plan& p) {
  std::ostringstream out;
  out << "{\n  \"score\": " << number_text(g.score) << ",\n  \"execution_time\": "
      << static_cast<long>(g.seconds + 0.5) << ",\n  \"output\": "
      << json_string(std::to_string(g.solved) + " of " + std::to_string(g.results.size()) +
                     " puzzles solved: " + number_text(g.score) + " of " +
                     number_text(g.max_score) + " points (tilepuzzles grade, seed " +
                     std::to_string(p.args.seed) + "). Each puzzle's test has its report.")
      << ",\n  \"tests\": [";
  for (std::size_t i = 0; i < g.results.size(); ++i) {
    const puzzle_spec& spec = *p.puzzles[i];
    const result& r = g.results[i];
    const bool passed = r.verdict == status::solved;
    out << (i ? "," : "") << "\n    {\"name\": "
        << json_string("Puzzle " + std::to_string(spec.number) + ": " + spec.id)
        << ", \"number\": " << json_string(std::to_string(spec.number))
        << ", \"score\": " << number_text(passed ? p.points[i] : 0)
        << ", \"max_score\": " << number_text(p.points[i])
        << ", \"status\": \"" << (passed ? "passed" : "failed") << "\""
        << ", \"output\": " << json_string(puzzle_output(r)) << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

std::string summary_csv(const std::vector<graded_student>& students, const plan& p) {
  std::string out = "student,number,puzzle,verdict,kind,points,max_points,cached\n";
  for (const graded_student& g : students)
    for (std::size_t i = 0; i < g.results.size(); ++i) {
      const result& r = g.results[i];
      out += csv_field(g.who.name) + "," + std::to_string(p.puzzles[i]->number) + "," +
             p.puzzles[i]->id + "," + status_name(r.verdict) + "," + r.kind() + "," +
             number_text(r.verdict == status::solved ? p.points[i] : 0) + "," +
             number_text(p.points[i]) + "," + (r.cached ? "yes" : "no") + "\n";
    }
  return out;
}

std::string summary_json(const std::vector<graded_student>& students, const plan& p) {
  std::ostringstream out;
  out << "{\n  \"seed\": " << p.args.seed << ",\n  \"sandbox\": "
      << (p.args.sandbox ? "true" : "false") << ",\n  \"puzzles\": [";
  for (std::size_t i = 0; i < p.puzzles.size(); ++i)
    out << (i ? ", " : "") << "{\"id\": " << json_string(p.puzzles[i]->id)
        << ", \"number\": " << p.puzzles[i]->number
        << ", \"max_points\": " << number_text(p.points[i]) << "}";
  out << "],\n  \"students\": [";
  for (std::size_t s = 0; s < students.size(); ++s) {
    const graded_student& g = students[s];
    out << (s ? "," : "") << "\n    {\"name\": " << json_string(g.who.name)
        << ", \"dir\": " << json_string(g.who.dir) << ", \"score\": " << number_text(g.score)
        << ", \"max_score\": " << number_text(g.max_score) << ", \"solved\": " << g.solved
        << ", \"puzzles\": [";
    for (std::size_t i = 0; i < g.results.size(); ++i) {
      const result& r = g.results[i];
      out << (i ? ", " : "") << "\n      {\"id\": " << json_string(p.puzzles[i]->id)
          << ", \"verdict\": \"" << status_name(r.verdict) << "\", \"kind\": "
          << json_string(r.kind()) << ", \"points\": "
          << number_text(r.verdict == status::solved ? p.points[i] : 0)
          << ", \"max_points\": " << number_text(p.points[i])
          << ", \"cached\": " << (r.cached ? "true" : "false") << "}";
    }
    out << "]}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

// JUnit, as CI systems and LMS importers read it: a suite per student, a test case per puzzle;
// a puzzle not solved has a <failure> whose message is its diagnostic's first line and whose
// type is its kind, and the report without a learner's advice as its text.
std::string junit(const std::vector<graded_student>& students, const plan& p) {
  int tests = 0, failures = 0;
  for (const graded_student& g : students)
    for (const result& r : g.results) {
      ++tests;
      if (r.verdict != status::solved) ++failures;
    }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tilepuzzles grade\" tests=\""
      << tests << "\" failures=\"" << failures << "\">\n";
  for (const graded_student& g : students) {
    int failed = 0;
    for (const result& r : g.results) failed += r.verdict != status::solved;
    out << "  <testsuite name=\"" << xml_text(g.who.name) << "\" tests=\"" << g.results.size()
        << "\" failures=\"" << failed << "\" errors=\"0\" time=\"" << number_text(g.seconds) << "\">\n";
    for (std::size_t i = 0; i < g.results.size(); ++i) {
      const result& r = g.results[i];
      out << "    <testcase classname=\"" << xml_text(g.who.name) << "\" name=\""
          << xml_text(std::to_string(p.puzzles[i]->number) + " " + p.puzzles[i]->id) << "\">\n";
      if (r.verdict != status::solved)
        out << "      <failure type=\"" << xml_text(r.kind()) << "\" message=\""
            << xml_text(first_diagnostic_line(r)) << "\">" << xml_text(puzzle_output(r))
            << "</failure>\n";
      out << "      <system-out>" << xml_text(puzzle_output(r)) << "</system-out>\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace

std::string default_points_file() {
  return std::string(TILEPUZZLES_SOURCE_DIR) + "/docs/grading/points.txt";
}

std::optional<std::string> read_points(const std::string& path, points_table& table) {
  const auto text = read_file(path);
  if (!text) return "cannot read the points file " + path;
  table.points.clear();
  std::istringstream in(*text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string id, value, extra;
    if (!(words >> id)) continue;
    if (!(words >> value) || (words >> extra))
      return where + "expected a puzzle's id and its points, as 'vector-add 10'";
    const puzzle_spec* p = find_puzzle(id);
    if (!p || p->id != id) return where + "'" + id + "' is not a puzzle's id. Puzzles: " + puzzle_choices();
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (!end || *end != '\0' || !(v >= 0) || v > 1e9)
      return where + "'" + value + "' is not a number of points (0 or more)";
    if (table.points.count(id)) return where + "'" + id + "' has a line already";
    table.points[id] = v;
  }
  for (const puzzle_spec* p : all_puzzles())
    if (!table.points.count(p->id))
      return path + ": no line for puzzle '" + p->id + "': add '" + p->id +
             " 10' to grade it, or '" + p->id + " 0' to leave it out";
  return std::nullopt;
}

int run_grade(const grade_args& args) {
  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  auto usage = [](const std::string& message) {
    std::cerr << "tilepuzzles grade: " << message << "\n";
    return exit_usage;
  };
  if (!is_directory(args.submissions))
    return usage(args.submissions + ": no such directory. Give the directory that holds one "
                 "directory per student, each a copy of puzzles/.");
  std::vector<student> students;
  // An --out inside SUBMISSIONS is no student's copy.
  char out_real[PATH_MAX];
  const std::string out_path = ::realpath(args.out.c_str(), out_real) ? out_real : "";
  for (const std::string& name : entries_of(args.submissions)) {
    const std::string dir = strip_trailing_slashes(args.submissions) + "/" + name;
    if (name[0] == '.' || !is_directory(dir)) continue;
    char real[PATH_MAX];
    if (!out_path.empty() && ::realpath(dir.c_str(), real) && out_path == real) continue;
    students.push_back({name, is_directory(dir + "/puzzles") ? dir + "/puzzles" : dir});
  }
  if (students.empty())
    return usage(args.submissions + " has no student directories: put each student's copy of "
                 "puzzles/ in a directory of its own (SUBMISSIONS/alice/vector_add.hpp, ...).");

  plan p;
  p.args = args;
  points_table table;
  const std::string points_file = args.points_file.empty() ? default_points_file() : args.points_file;
  if (auto problem = read_points(points_file, table)) return usage(*problem);
  for (const puzzle_spec* spec : all_puzzles())
    if (table.points[spec->id] > 0) {
      p.puzzles.push_back(spec);
      p.points.push_back(table.points[spec->id]);
    }
  if (p.puzzles.empty()) return usage(points_file + " gives every puzzle 0 points: nothing to grade.");

  if (args.sandbox) {
    if (const auto& why = sandbox::unavailable()) {
      std::cerr << "tilepuzzles grade: no sandbox on this machine: " << *why << ".\n"
                << "Grading compiles and runs every student's code; without a sandbox it runs "
                   "with your rights, and a stub can read, change or send anything you can.\n"
                   "Grade where bubblewrap works, or inside a container or account you can throw "
                   "away (Gradescope's is one) with --no-sandbox.\n";
      return exit_not_graded;
    }
  }
  if (args.use_cache) p.identity = checker_identity(args);

  const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  const int jobs = static_cast<int>(std::max<long>(
      1, std::min<long>(args.jobs > 0 ? args.jobs : cores, static_cast<long>(students.size()))));
  // Each copy's build may use every core: while one copy compiles, the others mostly find their
  // verdicts in the cache or run checks, and a share of cores/jobs would leave cores idle.
  p.build_jobs = static_cast<int>(cores);
  const std::string out_dir = strip_trailing_slashes(args.out);
  ::mkdir(out_dir.c_str(), 0777);
  ::mkdir((out_dir + "/students").c_str(), 0777);
  p.records_dir = out_dir + "/.records";
  ::mkdir(p.records_dir.c_str(), 0777);
  if (!is_directory(p.records_dir))
    return usage("cannot write to " + out_dir + " (--out): give a directory you can write");
  for (const student& s : students) std::remove((p.records_dir + "/" + s.name).c_str());

  // The copies, j at a time, each in a child; the progress line on stderr.
  const bool tty = ::isatty(STDERR_FILENO);
  std::vector<graded_student> graded(students.size());
  std::map<pid_t, std::size_t> running;
  std::vector<clock::time_point> began(students.size());
  std::size_t next = 0, done = 0;
  int from_cache = 0, checked = 0;
  auto progress = [&](const std::string& finished) {
    std::string names;
    for (const auto& [pid, i] : running) names += (names.empty() ? "" : ", ") + students[i].name;
    std::string line = "grade: " + std::to_string(done) + " of " + std::to_string(students.size()) +
                       (students.size() == 1 ? " copy graded" : " copies graded") + (finished.empty() ? "" : " (" + finished + " done)") +
                       ", " + std::to_string(from_cache) + " of " +
                       std::to_string(from_cache + checked) + " verdicts from the cache" +
                       (names.empty() ? "" : "; checking " + names);
    if (tty) std::cerr << "\r\033[K" << line.substr(0, 160) << std::flush;
    else std::cerr << line << "\n";
  };
  bool all_recorded = true;
  while (done < students.size()) {
    while (running.size() < static_cast<std::size_t>(jobs) && next < students.size()) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid == 0) {
        grade_copy(students[next], p);
        std::fflush(nullptr);
        std::_Exit(0);
      }
      if (pid < 0) {
        std::cerr << "tilepuzzles grade: could not start a process: " << std::strerror(errno) << "\n";
        return exit_not_graded;
      }
      began[next] = clock::now();
      running[pid] = next++;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    ++done;
    graded_student& g = graded[i];
    g.who = students[i];
    g.seconds = std::chrono::duration<double>(clock::now() - began[i]).count();
    if (const auto record = read_file(p.records_dir + "/" + students[i].name)) {
      std::size_t at = 0;
      result r;
      while (g.results.size() < p.puzzles.size() && decode(*record, at, r)) g.results.push_back(r);
      g.complete = g.results.size() == p.puzzles.size();
    }
    if (!g.complete) {
      all_recorded = false;
      const std::string how = WIFSIGNALED(status)
                                  ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
      g.results.assign(p.puzzles.size(), result{});
      for (std::size_t k = 0; k < p.puzzles.size(); ++k) {
        result& r = g.results[k];
        r.line = "  " + std::to_string(p.puzzles[k]->number) + "  " + p.puzzles[k]->id +
                 "  FAILED      crash";
        r.details = "--- " + std::to_string(p.puzzles[k]->number) + " " + p.puzzles[k]->id +
                    "\n  crash: the grading of this copy " + how +
                    " before it recorded its verdicts; grade it again.\n";
        r.json = "{\"id\": " + json_string(p.puzzles[k]->id) + ", \"status\": \"failed\"}";
      }
    }
    for (std::size_t k = 0; k < g.results.size(); ++k) {
      (g.results[k].cached ? from_cache : checked) += 1;
      g.max_score += p.points[k];
      if (g.results[k].verdict == status::solved) {
        g.score += p.points[k];
        ++g.solved;
      }
    }
    progress(g.who.name);
  }
  if (tty) std::cerr << "\n";

  for (const graded_student& g : graded) {
    const std::string dir = out_dir + "/students/" + g.who.name;
    ::mkdir(dir.c_str(), 0777);
    write_file(dir + "/report.txt", student_text_report(g, p));
    write_file(dir + "/report.json", student_json_report(g));
    write_file(dir + "/results.json", gradescope_results(g, p));
  }
  write_file(out_dir + "/summary.csv", summary_csv(graded, p));
  write_file(out_dir + "/summary.json", summary_json(graded, p));
  write_file(out_dir + "/junit.xml", junit(graded, p));
  for (const student& s : students) std::remove((p.records_dir + "/" + s.name).c_str());
  ::rmdir(p.records_dir.c_str());

  const double seconds = std::chrono::duration<double>(clock::now() - started).count();
  std::size_t width = 7;
  for (const graded_student& g : graded) width = std::max(width, g.who.name.size());
  std::printf("%-*s  %9s  %s\n", static_cast<int>(width), "student", "points", "solved");
  for (const graded_student& g : graded)
    std::printf("%-*s  %9s  %d of %zu%s\n", static_cast<int>(width), g.who.name.c_str(),
                (number_text(g.score) + "/" + number_text(g.max_score)).c_str(), g.solved,
                g.results.size(), g.complete ? "" : "  (not graded: see its report)");
  std::printf("\nGraded %zu %s of %zu puzzles in %.1f s (-j%d, %s; %d of %d verdicts from the "
              "cache).\nSummary: %s/summary.csv, %s/summary.json; JUnit: %s/junit.xml; each "
              "student's report.txt, report.json and Gradescope results.json: %s/students/NAME/\n",
              students.size(), students.size() == 1 ? "copy" : "copies", p.puzzles.size(), seconds, jobs,
              args.sandbox ? "in the sandbox" : "without a sandbox", from_cache,
              from_cache + checked, out_dir.c_str(), out_dir.c_str(), out_dir.c_str(),
              out_dir.c_str());
  return all_recorded ? exit_graded : exit_not_graded;
}

}  // namespace tp::grade
