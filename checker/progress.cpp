#include "checker/progress.hpp"

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

namespace tp {

namespace {

std::optional<std::string> read_all(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string verdict_file(const puzzle_spec& spec, const module_options& options) {
  return files_of({&spec, impl::stub, backend::simulator}, options).prefix + ".verdict";
}

// The shipped stub's body is exactly this comment (tests/shipped_stubs.hpp relies on it too).
bool is_untouched_stub(const std::string& text) {
  static const std::regex empty_body(R"(const \{\s*// Your code here\.\s*\})");
  return std::regex_search(text, empty_body);
}

}  // namespace

std::optional<std::uint64_t> content_hash(const std::string& path) {
  const auto text = read_all(path);
  if (!text) return std::nullopt;
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : *text) h = (h ^ c) * 1099511628211ull;
  return h;
}

void record_verdict(const puzzle_spec& spec, const module_options& options, std::uint64_t hash,
                    status verdict, const std::string& kind) {
  const std::string path = verdict_file(spec, options);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return;  // no build directory yet: nothing to remember
    out << status_name(verdict) << " " << (kind.empty() ? "-" : kind) << " " << std::hex << hash
        << "\n";
  }
  std::rename(temporary.c_str(), path.c_str());
}

void record_failed_run(const puzzle_spec& spec, const module_options& options,
                       const std::optional<run_id>& run) {
  const std::string path =
      files_of({&spec, impl::stub, backend::simulator}, options).prefix + ".failed-run";
  if (!run) {
    std::remove(path.c_str());
    return;
  }
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return;
    out << run->case_index << " " << run->kernel_index << " " << run->order << " " << run->seed
        << "\n";
  }
  std::rename(temporary.c_str(), path.c_str());
}

std::optional<run_id> last_failed_run(const puzzle_spec& spec, const module_options& options) {
  const auto text =
      read_all(files_of({&spec, impl::stub, backend::simulator}, options).prefix + ".failed-run");
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  run_id run;
  if (!(in >> run.case_index >> run.kernel_index >> run.order >> run.seed)) return std::nullopt;
  // A record from a build of other cases or block sizes is no run of this puzzle.
  if (run.case_index < 0 || run.case_index >= static_cast<int>(spec.cases.size()) ||
      run.kernel_index < 0 || run.kernel_index >= static_cast<int>(spec.kernels.size()) ||
      !spec.runs(spec.cases[run.case_index].sizes, spec.kernels[run.kernel_index].blocks))
    return std::nullopt;
  if (run.order != "forward" && run.order != "reverse" && run.order != "shuffle")
    return std::nullopt;
  return run;
}

puzzle_progress progress_of(const puzzle_spec& spec, const module_options& options) {
  const std::string kernel = files_of({&spec, impl::stub, backend::simulator}, options).kernel_file;
  const auto text = read_all(kernel);
  if (!text) return {progress::not_started, ""};
  const bool untouched = is_untouched_stub(*text);
  std::istringstream verdict(read_all(verdict_file(spec, options)).value_or(""));
  std::string state, kind;
  std::uint64_t hash = 0;
  if (!(verdict >> state >> kind >> std::hex >> hash) || hash != *content_hash(kernel))
    return {untouched ? progress::not_started : progress::changed, ""};
  if (kind == "-") kind.clear();
  if (state == status_name(status::solved)) return {progress::solved, ""};
  if (state == status_name(status::not_solved))
    return {untouched ? progress::not_started : progress::not_solved, ""};
  if (kind == "compile-error") return {progress::compile_error, kind};
  return {progress::failing, kind};
}

std::string progress_text(const puzzle_progress& p) {
  switch (p.state) {
    case progress::solved: return "solved";
    case progress::failing: return p.kind.empty() ? "failing" : "failing (" + p.kind + ")";
    case progress::compile_error: return "compile-error";
    case progress::not_solved: return "not solved";
    case progress::not_started: return "not started";
    case progress::changed: return "changed since checked";
  }
  return "";
}

std::string kind_of_report_line(const std::string& line) {
  static const std::regex failed(R"(FAILED +([a-z-]+))");
  std::smatch m;
  return std::regex_search(line, m, failed) ? m[1].str() : std::string();
}

}  // namespace tp
