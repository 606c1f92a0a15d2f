#include "checker/isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "checker/report.hpp"

namespace tp {

isolated_report summarize(const puzzle_report& report) {
  return {report.status, report_line(report), report_details(report), report_json(report)};
}

namespace {

// Shared with the child: where it is, so the parent can say where a crash or a hang happened.
struct progress {
  char where[480];                  // the run's label, "case N0=..., order forward"
  int case_index;                   // -1 before the first run
  int size_count, block_count;
  int sizes[16], blocks[16];
  char order[16];
  tl::sim::progress_tracker tracker;  // the program running and its last tile operation
};

void put_string(std::string& out, const std::string& s) {
  const std::uint64_t n = s.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += s;
}

bool get_string(const std::string& in, std::size_t& at, std::string& s) {
  std::uint64_t n = 0;
  if (at + sizeof n > in.size()) return false;
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  if (at + n > in.size()) return false;
  s = in.substr(at, n);
  at += n;
  return true;
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// A report the parent makes about a child that did not report: the case from the shared page.
isolated_report failure(const puzzle_spec& spec, const check_options& options, const char* k,
                        std::string message, const progress& at) {
  puzzle_report r;
  r.spec = &spec;
  r.which = options.which;
  r.kernel_file = shown_kernel_file(spec, options.which, options.modules);
  r.status = status::failed;
  r.seed = options.seed;
  if (at.case_index >= 0 && at.case_index < static_cast<int>(spec.cases.size())) {
    r.case_index = at.case_index;
    r.sizes.assign(at.sizes, at.sizes + at.size_count);
    r.blocks.assign(at.blocks, at.blocks + at.block_count);
    r.order = at.order;
    r.case_catches = spec.cases[at.case_index].catches;
  }
  tl::sim::diagnostic d;
  d.kind = k;
  d.message = std::move(message);
  if (!r.case_catches.empty()) d.message += "\n  About this case: " + r.case_catches;
  d.program = at.tracker.program;
  if (at.tracker.last_line != 0)
    d.source = std::string(at.tracker.last_file) + ":" + std::to_string(at.tracker.last_line);
  r.diagnostics.push_back(std::move(d));
  return summarize(r);
}

}  // namespace

gpu::device_status probe_gpu_isolated() {
  int fds[2];
  if (::pipe(fds) != 0) return {false, "could not start a process to look for a GPU"};
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {false, "could not start a process to look for a GPU"};
  }
  if (child == 0) {
    ::close(fds[0]);
    const auto status = gpu::probe();
    std::string out(1, status.available ? '1' : '0');
    // The description, then the reason after a NUL.
    out += status.description + '\0' + status.reason;
    write_all(fds[1], out);
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string data;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (data.empty()) return {false, "looking for a GPU crashed the CUDA runtime"};
  const std::size_t split = data.find('\0', 1);
  if (split == std::string::npos) return {data[0] == '1', data.substr(1)};
  return {data[0] == '1', data.substr(1, split - 1), data.substr(split + 1)};
}

isolated_report check_isolated(const puzzle_spec& spec, const check_options& options,
                               double timeout_seconds, double program_seconds) {
  void* shared = ::mmap(nullptr, sizeof(progress), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int fds[2];
  if (shared == MAP_FAILED || ::pipe(fds) != 0) return summarize(check_puzzle(spec, options));
  auto* where = new (shared) progress{};
  where->case_index = -1;

  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::munmap(shared, sizeof(progress));
    ::close(fds[0]);
    ::close(fds[1]);
    return summarize(check_puzzle(spec, options));
  }
  if (child == 0) {
    ::close(fds[0]);
    // A crash in the kernel must kill the child plainly: crash handlers inherited from the host
    // (a test framework's, say) would otherwise run here and print or exit as if they were it.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    check_options child_options = options;
    child_options.on_case = [where](const run_position& at) {
      std::snprintf(where->where, sizeof where->where, "%s", at.label.c_str());
      where->size_count = static_cast<int>(std::min<std::size_t>(at.sizes->size(), 16));
      std::copy_n(at.sizes->begin(), where->size_count, where->sizes);
      where->block_count = static_cast<int>(std::min<std::size_t>(at.blocks->size(), 16));
      std::copy_n(at.blocks->begin(), where->block_count, where->blocks);
      std::snprintf(where->order, sizeof where->order, "%s", at.order.c_str());
      where->case_index = static_cast<int>(at.case_index);
      where->tracker.program = {-1, -1, -1};
      where->tracker.last_line = 0;
    };
    tl::sim::set_progress_tracker(&where->tracker);
    const isolated_report r = summarize(check_puzzle(spec, child_options));
    std::string out(1, static_cast<char>(r.status));
    put_string(out, r.line);
    put_string(out, r.details);
    put_string(out, r.json);
    write_all(fds[1], out);
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }

  ::close(fds[1]);
  std::string data;
  enum class stop { no, check_deadline, program_deadline } stopped = stop::no;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(timeout_seconds);
  // A program that runs longer than program_seconds is a loop that never ends: the parent watches
  // the count of programs started, which a program that finishes moves on.
  unsigned long long started_seen = 0;
  auto started_at = clock::now();
  for (;;) {
    const auto now = clock::now();
    const unsigned long long started = where->tracker.programs_started;
    if (started != started_seen || where->tracker.program[0] < 0) {
      started_seen = started;
      started_at = now;
    } else if (std::chrono::duration<double>(now - started_at).count() > program_seconds) {
      stopped = stop::program_deadline;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (left.count() <= 0) {
      stopped = stop::check_deadline;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 50)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (stopped != stop::no) ::kill(child, SIGKILL);
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  const progress at = *where;
  ::munmap(shared, sizeof(progress));

  const bool in_program = at.tracker.program[0] >= 0;
  const std::string case_text = at.where[0] ? at.where : "before the first case";
  std::string program_text, last_op_text;
  if (in_program) {
    program_text = "program " + tl::sim::program_string(at.tracker.program);
    last_op_text = at.tracker.last_line == 0
                       ? "before its first tile operation"
                       : "after its tile operation at " + std::string(at.tracker.last_file) + ":" +
                             std::to_string(at.tracker.last_line);
  }
  auto seconds = [](double s) {
    std::ostringstream t;
    t << s << " s";
    return t.str();
  };

  if (stopped == stop::program_deadline)
    return failure(spec, options, tl::sim::kind::op_budget,
                   "op-budget: " + program_text + " ran for more than " + seconds(program_seconds) +
                       " without finishing, stopped " + last_op_text + " (" + case_text +
                       "). Is there a loop that never ends? Check the bound and the step of the "
                       "loop " + (at.tracker.last_line == 0 ? "before the first tile operation."
                                                            : "that follows that line."),
                   at);
  if (stopped == stop::check_deadline)
    return failure(spec, options, tl::sim::kind::op_budget,
                   "op-budget: the check did not finish within " + seconds(timeout_seconds) +
                       " (" + case_text + (in_program ? ", " + program_text : "") +
                       "). Is there a loop that never ends? Check each loop's bound and step.",
                   at);
  isolated_report r;
  std::size_t pos = 1;
  if (!data.empty() && get_string(data, pos, r.line) && get_string(data, pos, r.details) &&
      get_string(data, pos, r.json)) {
    r.status = static_cast<status>(data[0]);
    return r;
  }
  std::string how = "stopped without a report";
  if (WIFSIGNALED(wstatus))
    how = std::string("crashed with signal ") + std::to_string(WTERMSIG(wstatus)) + " (" +
          strsignal(WTERMSIG(wstatus)) + ")";
  else if (WIFEXITED(wstatus))
    how = "exited with status " + std::to_string(WEXITSTATUS(wstatus)) + " before reporting";
  if (in_program)
    return failure(spec, options, tl::sim::kind::crash,
                   "crash: the kernel " + how + " in " + program_text + ", " + last_op_text +
                       " (" + case_text +
                       "). Tile operations are checked, so look for plain C++ in the kernel "
                       "after that line: array indexing, division by zero, recursion.",
                   at);
  return failure(spec, options, tl::sim::kind::crash,
                 "crash: the check " + how + " (" + case_text +
                     "), outside the kernel's programs. Run it again with --no-isolate under a "
                     "debugger to see where.",
                 at);
}

}  // namespace tp
