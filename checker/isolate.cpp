#include "checker/isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

#include "checker/report.hpp"

namespace tp {

isolated_report summarize(const puzzle_report& report) {
  return {report.status, report_line(report), report_details(report), report_json(report)};
}

namespace {

// Shared with the child: where it is, so the parent can say where a crash happened.
struct progress {
  char where[480];
  std::array<int, 3> program;
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

isolated_report failure(const puzzle_spec& spec, const check_options& options, const char* k,
                        std::string message, std::array<int, 3> program) {
  puzzle_report r;
  r.spec = &spec;
  r.which = options.which;
  r.kernel_file = shown_kernel_file(spec, options.which, options.modules);
  r.status = status::failed;
  tl::sim::diagnostic d;
  d.kind = k;
  d.message = std::move(message);
  d.program = program;
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
                               double timeout_seconds) {
  void* shared = ::mmap(nullptr, sizeof(progress), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int fds[2];
  if (shared == MAP_FAILED || ::pipe(fds) != 0) return summarize(check_puzzle(spec, options));
  auto* where = new (shared) progress{};
  where->program = {-1, -1, -1};

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
    child_options.on_case = [where](const std::string& w) {
      std::snprintf(where->where, sizeof where->where, "%s", w.c_str());
      where->program = {-1, -1, -1};
    };
    tl::sim::set_program_tracker(&where->program);
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
  bool timed_out = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  const std::array<int, 3> program = where->program;
  const std::string place =
      std::string(where->where[0] ? where->where : "before the first case") +
      (where->program[0] >= 0 ? ", program " + tl::sim::program_string(where->program) : "");
  ::munmap(shared, sizeof(progress));

  if (timed_out)
    return failure(spec, options, tl::sim::kind::op_budget,
                   "op-budget: the check did not finish within " +
                       std::to_string(static_cast<int>(timeout_seconds)) + " s (" + place +
                       "). Is there a loop that never ends? Check each loop's bound and step.",
                   program);
  isolated_report r;
  std::size_t at = 1;
  if (!data.empty() && get_string(data, at, r.line) && get_string(data, at, r.details) &&
      get_string(data, at, r.json)) {
    r.status = static_cast<status>(data[0]);
    return r;
  }
  std::string how = "stopped without a report";
  if (WIFSIGNALED(wstatus))
    how = std::string("crashed with signal ") + std::to_string(WTERMSIG(wstatus)) + " (" +
          strsignal(WTERMSIG(wstatus)) + ")";
  else if (WIFEXITED(wstatus))
    how = "exited with status " + std::to_string(WEXITSTATUS(wstatus)) + " before reporting";
  return failure(spec, options, tl::sim::kind::crash,
                 "crash: the kernel " + how + " (" + place +
                     "). Tile operations are checked, so look for plain C++ in the kernel: "
                     "array indexing, division by zero, recursion.",
                 program);
}

}  // namespace tp
