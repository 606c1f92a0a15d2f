#include "checker/isolate.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <variant>

#include "checker/gpu.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/run_channel.hpp"
#include "checker/sandbox.hpp"
#include "checker/syscall_filter.hpp"

namespace tp {

isolated_report summarize(const puzzle_report& report) {
  return {report.status, report_line(report), report_details(report), report_json(report),
          failed_run(report)};
}

namespace {

// Shared with the child: where it is, so the parent can say where a crash or a hang happened.
struct progress {
  char where[480];                  // the run's label, "case N0=..., order forward"
  int case_index;                   // -1 before the first run
  int kernel_index;
  int size_count, block_count;
  int sizes[16], blocks[16];
  char order[16];
  tl::sim::progress_tracker tracker;  // the program running and its last tile operation
  // The sandboxed runner's part: where it is, what its filter stopped, why it could not start.
  enum : int { starting, loading_module, checking } phase;
  tp::syscall_filter::stopped_call stopped;
  char runner_problem[512];
};

// The sandboxed runner's descriptors, as the supervising process sets them up before exec.
constexpr int runner_module_fd = 3;
constexpr int runner_progress_fd = 4;
constexpr int runner_report_fd = 5;
constexpr int runner_gpu_module_fd = 6;  // check --gpu: the GPU module's verified bytes

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
  // The case and block sizes from the spec, by the page's numbers (a sandboxed runner's page is
  // written by a process the stub shares).
  if (at.case_index >= 0 && at.case_index < static_cast<int>(spec.cases.size()) &&
      at.kernel_index >= 0 && at.kernel_index < static_cast<int>(spec.kernels.size())) {
    const kernel_entry& k = spec.kernels[static_cast<std::size_t>(at.kernel_index)];
    r.case_index = at.case_index;
    r.sizes = spec.cases[static_cast<std::size_t>(at.case_index)].sizes;
    r.blocks = k.blocks;
    const std::string order = at.order;
    if (order == "forward" || order == "reverse" || order == "shuffle") r.order = order;
    r.kernel_index = at.kernel_index;
    r.dtype = k.dtype;
    r.case_about = spec.cases[static_cast<std::size_t>(at.case_index)].about;
  }
  tl::sim::diagnostic d;
  d.kind = k;
  d.message = std::move(message);
  if (!r.case_about.empty()) d.message += "\n  About this case: " + r.case_about;
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

namespace {

// Where the child is, for reports: its case and program, and the last tile operation.
void note_case(progress* where, const run_position& at) {
  std::snprintf(where->where, sizeof where->where, "%s", at.label.c_str());
  where->size_count = static_cast<int>(std::min<std::size_t>(at.sizes->size(), 16));
  std::copy_n(at.sizes->begin(), where->size_count, where->sizes);
  where->block_count = static_cast<int>(std::min<std::size_t>(at.blocks->size(), 16));
  std::copy_n(at.blocks->begin(), where->block_count, where->blocks);
  std::snprintf(where->order, sizeof where->order, "%s", at.order.c_str());
  where->case_index = static_cast<int>(at.case_index);
  where->kernel_index = static_cast<int>(at.kernel_index);
  where->tracker.program = {-1, -1, -1};
  where->tracker.last_line = 0;
}

std::string encode(const isolated_report& r) {
  std::string out(1, static_cast<char>(r.status));
  put_string(out, r.line);
  put_string(out, r.details);
  put_string(out, r.json);
  if (r.failed)
    put_string(out, std::to_string(r.failed->case_index) + " " +
                        std::to_string(r.failed->kernel_index) + " " + r.failed->order + " " +
                        std::to_string(r.failed->seed));
  return out;
}

// The failed run after the strings, when the report has one.
std::optional<run_id> decode_failed_run(const std::string& data, std::size_t& at) {
  std::string text;
  if (!get_string(data, at, text)) return std::nullopt;
  std::istringstream in(text);
  run_id run;
  if (!(in >> run.case_index >> run.kernel_index >> run.order >> run.seed)) return std::nullopt;
  return run;
}

// A child that checks: its process, the pipe its report comes through (the sandboxed runner's
// channel, a socket, with `talk`), and (sandboxed) the pipe of its messages.
struct child_process {
  pid_t pid = -1;
  int report_fd = -1;
  int output_fd = -1;
  // The sandboxed runner's side of the conversation: takes whole messages from `in`, appends
  // the answers to `out`; false when the runner said what no check says (it is stopped).
  std::function<bool(std::string& in, std::string& out)> talk;
  // Work to do while the child computes (the references of the runs to come), a piece at a
  // time: false once none is left for now.
  std::function<bool()> idle;
};

// What the supervising process saw of a child.
struct supervised {
  enum class stop { no, check_deadline, program_deadline, channel } stopped = stop::no;
  std::string data;    // the report, as the child wrote it (without `talk`)
  std::string output;  // the sandboxed runner's messages (stderr)
  int wait_status = 0;
};

// Waits for the child's report, enforcing the check's deadline and the program's.
supervised supervise(const child_process& child, const progress* where, double timeout_seconds,
                     double program_seconds) {
  supervised s;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(timeout_seconds);
  // A program that runs longer than program_seconds is a loop that never ends: the parent watches
  // the count of programs started, which a program that finishes moves on.
  unsigned long long started_seen = 0;
  auto started_at = clock::now();
  bool report_open = true, output_open = child.output_fd >= 0;
  std::string in, out;  // the conversation's messages not yet taken, and answers not yet sent
  bool idle_work = static_cast<bool>(child.idle);
  while (report_open) {
    const auto now = clock::now();
    const unsigned long long started = where->tracker.programs_started;
    if (started != started_seen || where->tracker.program[0] < 0) {
      started_seen = started;
      started_at = now;
    } else if (std::chrono::duration<double>(now - started_at).count() > program_seconds) {
      s.stopped = supervised::stop::program_deadline;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (left.count() <= 0) {
      s.stopped = supervised::stop::check_deadline;
      break;
    }
    const short report_events = static_cast<short>(POLLIN | (out.empty() ? 0 : POLLOUT));
    pollfd p[2] = {{child.report_fd, report_events, 0}, {child.output_fd, POLLIN, 0}};
    const int ready = ::poll(p, output_open ? 2 : 1,
                             idle_work ? 0 : static_cast<int>(std::min<long long>(left.count(), 50)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && idle_work) idle_work = child.idle();
    if (ready <= 0) continue;
    char buf[65536];
    if (output_open && (p[1].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = ::read(child.output_fd, buf, sizeof buf);
      if (n <= 0) output_open = false;
      // Enough to say why a runner did not start; a kernel that prints more is cut here.
      else if (s.output.size() < 16384) s.output.append(buf, static_cast<std::size_t>(n));
    }
    if (!out.empty() && (p[0].revents & POLLOUT)) {
      // Never blocks: a runner that stops reading cannot hold the supervisor up.
      const ssize_t n = ::send(child.report_fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) out.erase(0, static_cast<std::size_t>(n));
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(child.report_fd, buf, sizeof buf);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) {
        report_open = false;
      } else if (child.talk) {
        in.append(buf, static_cast<std::size_t>(n));
        if (!child.talk(in, out)) {
          s.stopped = supervised::stop::channel;
          break;
        }
        idle_work = static_cast<bool>(child.idle);
      } else {
        s.data.append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  ::close(child.report_fd);
  // Killing bwrap, the init of the sandbox's PID namespace, ends every process in it.
  if (s.stopped != supervised::stop::no) ::kill(child.pid, SIGKILL);
  if (output_open) {
    // What is left of the messages, now that the child has ended or been stopped.
    ::fcntl(child.output_fd, F_SETFL, O_NONBLOCK);
    char buf[4096];
    for (ssize_t n; (n = ::read(child.output_fd, buf, sizeof buf)) > 0 && s.output.size() < 16384;)
      s.output.append(buf, static_cast<std::size_t>(n));
  }
  if (child.output_fd >= 0) ::close(child.output_fd);
  // A child that closed its report and goes on (a stub may close the runner's descriptors and
  // sleep) is still held to the check's deadline.
  for (;;) {
    const pid_t done = ::waitpid(child.pid, &s.wait_status, WNOHANG);
    if (done == child.pid || (done < 0 && errno != EINTR)) break;
    if (done == 0 && clock::now() > deadline) {
      if (s.stopped == supervised::stop::no) s.stopped = supervised::stop::check_deadline;
      ::kill(child.pid, SIGKILL);
      while (::waitpid(child.pid, &s.wait_status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (done == 0) ::usleep(2000);
  }
  return s;
}

std::string seconds_text(double s) {
  std::ostringstream t;
  t << s << " s";
  return t.str();
}

// The report of a child whose check was stopped, crashed or never reported. `how_ended` says
// how the process ended when it did not report ("crashed with signal 11 (...)").
isolated_report interpret(const puzzle_spec& spec, const check_options& options,
                          const supervised& s, const progress& at, double timeout_seconds,
                          double program_seconds, const std::string& how_ended,
                          const std::string& limit_note) {
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
  if (s.stopped == supervised::stop::program_deadline)
    return failure(spec, options, tl::sim::kind::op_budget,
                   "op-budget: " + program_text + " ran for more than " +
                       seconds_text(program_seconds) + " without finishing, stopped " +
                       last_op_text + " (" + case_text +
                       "). Is there a loop that never ends? Check the bound and the step of the "
                       "loop " + (at.tracker.last_line == 0 ? "before the first tile operation."
                                                            : "that follows that line."),
                   at);
  if (s.stopped == supervised::stop::check_deadline)
    return failure(spec, options, tl::sim::kind::op_budget,
                   "op-budget: the check did not finish within " + seconds_text(timeout_seconds) +
                       " (" + case_text + (in_program ? ", " + program_text : "") +
                       "). Is there a loop that never ends? Check each loop's bound and step.",
                   at);
  isolated_report r;
  std::size_t pos = 1;
  if (!s.data.empty() && get_string(s.data, pos, r.line) && get_string(s.data, pos, r.details) &&
      get_string(s.data, pos, r.json)) {
    r.status = static_cast<status>(s.data[0]);
    r.failed = decode_failed_run(s.data, pos);
    return r;
  }
  if (in_program)
    return failure(spec, options, tl::sim::kind::crash,
                   "crash: the kernel " + how_ended + " in " + program_text + ", " + last_op_text +
                       " (" + case_text + ")." + limit_note +
                       " Tile operations are checked, so look for plain C++ in the kernel "
                       "after that line: array indexing, division by zero, recursion.",
                   at);
  return failure(spec, options, tl::sim::kind::crash,
                 "crash: the check " + how_ended + " (" + case_text + "), outside the kernel's "
                 "programs." + limit_note + " Run it again with --no-isolate under a debugger to "
                 "see where.",
                 at);
}

std::string how_process_ended(int wait_status) {
  if (WIFSIGNALED(wait_status))
    return std::string("crashed with signal ") + std::to_string(WTERMSIG(wait_status)) + " (" +
           strsignal(WTERMSIG(wait_status)) + ")";
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status)) + " before reporting";
  return "stopped without a report";
}

progress* shared_progress(int fd) {
  void* shared = ::mmap(nullptr, sizeof(progress), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return shared == MAP_FAILED ? nullptr : static_cast<progress*>(shared);
}

std::string orders_text(const std::vector<tl::sim::order>& orders) {
  std::string out;
  for (const auto o : orders) {
    if (!out.empty()) out += ",";
    out += o == tl::sim::order::forward ? "forward" : o == tl::sim::order::reverse ? "reverse" : "shuffle";
  }
  return out;
}

// The last lines of a text, at most `count`.
std::string tail_lines(const std::string& text, int count) {
  std::size_t at = text.size();
  while (at > 0 && text[at - 1] == '\n') --at;
  const std::size_t end = at;
  for (int n = 0; n < count && at > 0; ++n) {
    const std::size_t nl = text.rfind('\n', at - 1);
    at = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  if (at > 0) ++at;
  return text.substr(at, end - at);
}

// The shared page as the runner left it, made safe to read: the runner's process is the stub's
// too, so its strings may have no end and its counts may be anything.
progress sanitized(const progress& shared) {
  progress at = shared;
  at.where[sizeof at.where - 1] = '\0';
  at.order[sizeof at.order - 1] = '\0';
  at.runner_problem[sizeof at.runner_problem - 1] = '\0';
  at.tracker.last_file[sizeof at.tracker.last_file - 1] = '\0';
  at.tracker.last_file_seen = nullptr;
  at.stopped.path[sizeof at.stopped.path - 1] = '\0';
  at.size_count = std::clamp(at.size_count, 0, 16);
  at.block_count = std::clamp(at.block_count, 0, 16);
  if (at.phase != progress::starting && at.phase != progress::loading_module &&
      at.phase != progress::checking)
    at.phase = progress::starting;
  return at;
}

// A sandboxed runner, started: `tilepuzzles __sandbox-run` inside bubblewrap, given the module's
// verified bytes, the shared page and its channel as descriptors 3, 4 and 5.
struct sandboxed_runner {
  child_process child;
  progress* where = nullptr;
  sandbox::limits limit;
  sandbox::process_group group;  // where RLIMIT_NPROC does not hold (root)
};

// Starts the runner with `extra` arguments after the puzzle's; the diagnostic that takes the
// check's place when it cannot be.
std::variant<sandboxed_runner, tl::sim::diagnostic> start_runner(
    const puzzle_spec& spec, const check_options& options, double timeout_seconds,
    const std::vector<std::string>& extra) {
  auto verified = verified_module_bytes({&spec, options.which, backend::simulator}, options.modules);
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&verified)) return *problem;
  const std::string& bytes = std::get<std::string>(verified);
  auto could_not = [&](const std::string& what) {
    tl::sim::diagnostic d;
    d.kind = tl::sim::kind::crash;
    d.message = "crash: the sandbox could not be set up (" + what + ": " + std::strerror(errno) +
                "). Check again; --no-sandbox checks without one.";
    return d;
  };

  // The GPU module too, for check --gpu of a puzzle that runs on the GPU.
  const bool gpu = options.gpu && gpu_enabled(spec);
  std::string gpu_bytes;
  if (gpu) {
    if (options.modules.build) {
      // Compiled in a sandbox of its own (checker/modules.cpp), as the simulator's module was.
      auto built = build_modules({{&spec, options.which, backend::gpu}}, options.modules);
      if (built[0]) return *built[0];
    }
    auto verified_gpu = verified_module_bytes({&spec, options.which, backend::gpu}, options.modules);
    if (auto* problem = std::get_if<tl::sim::diagnostic>(&verified_gpu)) return *problem;
    gpu_bytes = std::move(std::get<std::string>(verified_gpu));
  }
  // The modules, as sealed bytes: what the runner loads is exactly what was checked here.
  auto sealed = [](const char* name, const std::string& content) {
    const int fd = static_cast<int>(::syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (fd < 0) return fd;
    write_all(fd, content);
    ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return fd;
  };
  const int module_fd = sealed("tilepuzzles-module", bytes);
  if (module_fd < 0) return could_not("memfd_create");
  const int gpu_module_fd = gpu ? sealed("tilepuzzles-gpu-module", gpu_bytes) : -1;
  if (gpu && gpu_module_fd < 0) {
    ::close(module_fd);
    return could_not("memfd_create");
  }
  auto close_modules = [&] {
    ::close(module_fd);
    if (gpu_module_fd >= 0) ::close(gpu_module_fd);
  };
  const int progress_fd = static_cast<int>(::syscall(SYS_memfd_create, "tilepuzzles-progress", MFD_CLOEXEC));
  if (progress_fd < 0 || ::ftruncate(progress_fd, sizeof(progress)) != 0) {
    close_modules();
    return could_not("memfd_create");
  }
  progress* where = shared_progress(progress_fd);
  // The channel: a socket, both ways (the runner asks for judgments and waits for them).
  int channel[2], output[2];
  if (!where || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    close_modules();
    ::close(progress_fd);
    return could_not("socketpair");
  }
  if (::pipe2(output, O_CLOEXEC) != 0) {
    ::close(channel[0]);
    ::close(channel[1]);
    close_modules();
    ::close(progress_fd);
    return could_not("pipe");
  }
  new (where) progress{};
  where->case_index = -1;

  sandbox::limits limit;
  limit.memory_mb = options.modules.memory_mb;
  limit.cpu_seconds = static_cast<long>(timeout_seconds) + 5;
  limit.data_only = gpu;
  sandbox::view v;
  v.gpu = gpu;
  v.read_only.push_back(stubs_dir(options.modules));
  // The caller's directory (created empty when it is not in view): a --puzzles path relative to
  // it names the same directory inside as outside.
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd)) v.chdir = cwd;
  std::vector<std::string> runner = {sandbox::program(), "__sandbox-run"};
  const std::vector<std::string> arguments = runner_arguments(spec, options, limit.memory_mb);
  runner.insert(runner.end(), arguments.begin(), arguments.end());
  runner.insert(runner.end(), extra.begin(), extra.end());
  std::vector<std::string> args = sandbox::command_line(v, limit, runner);
  // Built before the fork: the child only moves descriptors and calls exec.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  sandbox::process_group group = sandbox::process_group::make(limit);

  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {channel[0], channel[1], output[0], output[1], progress_fd}) ::close(fd);
    close_modules();
    ::munmap(where, sizeof(progress));
    return could_not("fork");
  }
  if (pid == 0) {
    group.join();
    // Each descriptor first out of the way of 3 to 6, then into its place.
    const int moved[4] = {::fcntl(module_fd, F_DUPFD, 10), ::fcntl(progress_fd, F_DUPFD, 10),
                          ::fcntl(channel[1], F_DUPFD, 10),
                          gpu_module_fd >= 0 ? ::fcntl(gpu_module_fd, F_DUPFD, 10) : -1};
    ::dup2(moved[0], runner_module_fd);
    ::dup2(moved[1], runner_progress_fd);
    ::dup2(moved[2], runner_report_fd);
    if (moved[3] >= 0) ::dup2(moved[3], runner_gpu_module_fd);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(output[1], 2);
    // Nothing else of this process reaches the sandbox.
    const int first_closed = moved[3] >= 0 ? runner_gpu_module_fd + 1 : runner_gpu_module_fd;
    if (::syscall(SYS_close_range, first_closed, ~0U, 0) != 0)
      for (int fd = first_closed; fd < 1024; ++fd) ::close(fd);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  for (int fd : {channel[1], output[1], progress_fd}) ::close(fd);
  close_modules();
  sandboxed_runner r;
  r.child = {pid, channel[0], output[0], {}, {}};
  r.where = where;
  r.limit = limit;
  r.group = std::move(group);
  return r;
}

// Where the runner was, from its page: "in program (0, 0, 0), after its tile operation at
// puzzles/x.hpp:12 (case ...)", "while its module was loading (...)", "outside the kernel's
// programs (case ...)".
std::string when_text(const progress& at) {
  if (at.phase == progress::loading_module)
    return "while its module was loading (a global or static object's constructor in the stub "
           "runs then)";
  if (at.tracker.program[0] >= 0)
    return "in program " + tl::sim::program_string(at.tracker.program) +
           (at.tracker.last_line == 0 ? std::string(", before its first tile operation")
                                      : ", after its tile operation at " +
                                            std::string(at.tracker.last_file) + ":" +
                                            std::to_string(at.tracker.last_line)) +
           (at.where[0] ? " (" + std::string(at.where) + ")" : std::string());
  return "outside the kernel's programs" + (at.where[0] ? " (" + std::string(at.where) + ")" : std::string());
}

// What a forged report or message means, after the sentence that says what came.
constexpr const char* forged_note =
    " The checker's code never says that, so the kernel wrote it: in the sandbox a kernel may "
    "not write to the checker's descriptors or end the check early, and trying stops its check. "
    "The verdict is the checker's own comparison of each run's outputs with the reference, never "
    "the word of the process that runs the kernel.";

// The diagnostic of a runner that did not end as a check ends: a call the filter stopped, what
// it said on its channel that no check says, a sandbox it could not make; nothing when it ended
// otherwise (a crash or a deadline: `interpret`).
std::optional<std::string> sandbox_finding(const supervised& s, const progress& at,
                                           const std::string& channel_problem) {
  const sandbox::ending end = sandbox::ending_of(s.wait_status);
  // Killed by SIGSYS without a record: the filter stopped a call made with every signal blocked
  // (posix_spawn blocks them, for std::system and popen), so the kernel ended it at once.
  const bool stopped_unrecorded = end.signalled && end.code == SIGSYS && !at.stopped.set;
  if (at.stopped.set || stopped_unrecorded)
    return "sandbox: the kernel tried to " +
           (at.stopped.set ? syscall_filter::describe(at.stopped)
                           : std::string("make a system call the sandbox forbids, with every "
                                         "signal blocked (std::system, popen and posix_spawn "
                                         "start a process so)")) +
           ", " + when_text(at) +
           ". A kernel computes with tl operations; in the sandbox it may not open files, run "
           "programs or start processes, use the network, or signal other processes, and "
           "trying stops its check.";
  if (s.stopped == supervised::stop::channel)
    return "sandbox: the process that runs the kernel sent the checker " + channel_problem + ", " +
           when_text(at) + "." + forged_note;
  return std::nullopt;
}

// The supervisor's side of a sandboxed check's channel: it makes each case's inputs and the
// reference's outputs itself, judges every judged run's outputs as the runner sends them, and
// keeps the runner's report as a claim to weigh against its own judgments.
struct judging {
  const puzzle_spec& spec;
  const check_options& options;
  std::vector<judged_run> runs;
  std::size_t next = 0;  // the judged run whose outputs come next
  std::map<std::pair<int, std::size_t>, case_data> cases;  // by dtype and case
  std::optional<puzzle_report> verdict;  // the first run judged wrong, as check_puzzle words it
  std::optional<std::size_t> wrong_run;
  std::optional<puzzle_report> claimed;  // the runner's report
  std::string problem;                   // what the runner said that no check says
  // With gpu_only: the solved report of the simulator's check that came before this one, whose
  // runs a report of the GPU's part counts as its own (what one runner of both reported).
  const puzzle_report* simulator_part = nullptr;

  judging(const puzzle_spec& s, const check_options& o) : spec(s), options(o), runs(judged_runs(s, o)) {}

  // A report of the runner that got as far as the GPU (solved, or failed in a GPU run), with the
  // simulator's part of the check as one runner of both would have counted it.
  puzzle_report with_simulator_part(puzzle_report r) const {
    if (simulator_part && (r.status == status::solved || r.gpu_runs > 0)) {
      r.runs = simulator_part->runs;
      r.bound_runs = simulator_part->bound_runs;
      r.max_program_ops = simulator_part->max_program_ops;
      r.counters = simulator_part->counters;
    }
    return r;
  }

  const case_data& case_of(const judged_run& run) {
    const kernel_entry& kernel = spec.kernels[run.kernel_index];
    const auto key = std::make_pair(static_cast<int>(kernel.dtype), run.case_index);
    auto it = cases.find(key);
    if (it == cases.end())
      it = cases.emplace(key, make_case(spec, spec.cases[run.case_index], options.seed,
                                        run.case_index, kernel.dtype)).first;
    return it->second;
  }

  // Makes the case of the next judged run whose case is not made yet, while the runner runs
  // the kernel: false when there is none for now. The large tier's cases only once the check
  // has reached them (a kernel that fails a small case never needs them).
  bool prepare() {
    for (std::size_t j = next; j < runs.size(); ++j) {
      const judged_run& run = runs[j];
      const kernel_entry& kernel = spec.kernels[run.kernel_index];
      if (cases.count({static_cast<int>(kernel.dtype), run.case_index})) continue;
      if (spec.cases[run.case_index].large && j != next) return false;
      case_of(run);
      return true;
    }
    return false;
  }

  // The most bytes a message of `type` may hold now.
  std::uint64_t most(char type) {
    if (type == channel::report_message) return 64u << 20;
    if (type != channel::outputs_message || next >= runs.size()) return 0;
    std::uint64_t bytes = 4096;
    for (const auto& t : case_of(runs[next]).tensors)
      if (t.output) bytes += 64 + 4 * static_cast<std::uint64_t>(t.count());
    return bytes;
  }

  bool take(std::string& in, std::string& out) {
    while (auto h = channel::peek(in)) {
      if (claimed) {
        problem = "more after the check's report";
        return false;
      }
      if (h->type != channel::outputs_message && h->type != channel::report_message) {
        problem = "a message of a kind the checker never sends";
        return false;
      }
      if (h->type == channel::outputs_message && (next >= runs.size() || verdict)) {
        problem = verdict ? "outputs after the checker had judged a run wrong"
                          : "outputs of more runs than the check has";
        return false;
      }
      if (h->length > most(h->type)) {
        problem = "a message longer than the check's";
        return false;
      }
      if (in.size() < channel::header_size + h->length) return true;
      const std::string payload = in.substr(channel::header_size, h->length);
      in.erase(0, channel::header_size + h->length);
      if (h->type == channel::report_message) {
        claimed = channel::decode_report(payload, spec, options, problem);
        if (!claimed) return false;
        continue;
      }
      const judged_run run = runs[next];
      const case_data& data = case_of(run);
      auto got = channel::decode_outputs(payload, spec, next, run, data.tensors, problem);
      if (!got) return false;
      ++next;
      if (auto d = compare_outputs(spec, got->got, data.expected, judged_where(spec, run))) {
        verdict = judged_failure(spec, options, run, std::move(*d));
        wrong_run = next - 1;
        out += channel::encode_judgment(data.expected);
      } else {
        out += channel::encode_judgment(std::nullopt);
      }
    }
    return true;
  }

  // The report, once the runner has ended without a finding of the sandbox's or a deadline.
  std::optional<puzzle_report> conclude() const {
    if (verdict) {
      // The runner's report explains the wrong run better (the load whose `other` decides it,
      // where the first NaN was made) when it is about that run; the verdict is the same.
      const judged_run& run = runs[*wrong_run];
      if (claimed && claimed->status == status::failed && !claimed->diagnostics.empty() &&
          claimed->case_index == static_cast<int>(run.case_index) &&
          claimed->kernel_index == static_cast<int>(run.kernel_index) &&
          claimed->order == (run.gpu ? "" : run.order) &&
          (claimed->diagnostics.front().kind == tl::sim::kind::wrong_result ||
           claimed->diagnostics.front().kind == tl::sim::kind::nan_inf))
        return with_simulator_part(*claimed);
      return verdict;
    }
    if (!claimed) return claimed;
    if (claimed->status != status::solved) return with_simulator_part(*claimed);
    if (next != runs.size()) return std::nullopt;  // a forged `solved`: check_sandboxed says so
    // Solved: every judged run's outputs were right here. The report describes the last run.
    puzzle_report r = *claimed;
    if (!runs.empty()) {
      const judged_run& last = runs.back();
      const kernel_entry& k = spec.kernels[last.kernel_index];
      r.case_index = static_cast<int>(last.case_index);
      r.kernel_index = static_cast<int>(last.kernel_index);
      r.sizes = spec.cases[last.case_index].sizes;
      r.blocks = k.blocks;
      r.dtype = k.dtype;
      r.order = last.gpu ? "" : last.order;
      r.case_about = spec.cases[last.case_index].about;
    }
    r.runs = static_cast<int>(std::count_if(runs.begin(), runs.end(),
                                            [](const judged_run& j) { return !j.gpu; }));
    r.gpu_runs = static_cast<int>(runs.size()) - r.runs;
    if (options.gpu) r.gpu_note = gpu_note(spec, r.gpu_runs);
    return with_simulator_part(std::move(r));
  }
};

// The check of a stub in the sandbox. The runner runs the check as check_puzzle does, but makes
// no reference outputs: it sends each judged run's outputs here and waits for the judgment, so
// the verdict rests on comparisons made in this process, from inputs and references the stub's
// process never held (until a run was judged wrong).
// `simulator_part`: with options.gpu_only, the solved report of the simulator's check before
// it. `solved`: where to keep this check's report when it is solved (for the check after it).
isolated_report check_sandboxed(const puzzle_spec& spec, const check_options& options,
                                double timeout_seconds, double program_seconds,
                                const puzzle_report* simulator_part = nullptr,
                                std::optional<puzzle_report>* solved = nullptr) {
  auto started = start_runner(spec, options, timeout_seconds, {});
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&started)) {
    puzzle_report r;
    r.spec = &spec;
    r.which = options.which;
    r.kernel_file = shown_kernel_file(spec, options.which, options.modules);
    r.diagnostics.push_back(*problem);
    return summarize(r);
  }
  sandboxed_runner& runner = std::get<sandboxed_runner>(started);
  judging judge(spec, options);
  judge.simulator_part = simulator_part;
  runner.child.talk = [&](std::string& in, std::string& out) { return judge.take(in, out); };
  runner.child.idle = [&] { return judge.prepare(); };
  const supervised s = supervise(runner.child, runner.where, timeout_seconds, program_seconds);
  const progress at = sanitized(*runner.where);
  ::munmap(runner.where, sizeof(progress));
  runner.group.release();
  const sandbox::limits& limit = runner.limit;

  if (auto finding = sandbox_finding(s, at, judge.problem))
    return failure(spec, options, tl::sim::kind::sandbox, *finding, at);
  if (at.runner_problem[0])
    return failure(spec, options, tl::sim::kind::crash,
                   "crash: the sandbox could not be set up: " + std::string(at.runner_problem) +
                       ". Check again; --no-sandbox checks without one.",
                   at);
  if (s.stopped == supervised::stop::no) {
    if (auto report = judge.conclude()) {
      if (solved && report->status == status::solved) *solved = *report;
      return summarize(*report);
    }
    if (judge.claimed && judge.claimed->status == status::solved) {
      // `solved`, without the outputs of every judged run: not the check's report.
      return failure(spec, options, tl::sim::kind::sandbox,
                     "sandbox: the process that runs the kernel reported it solved, " + when_text(at) +
                         ", having shown the checker the outputs of " + std::to_string(judge.next) +
                         " of the " + std::to_string(judge.runs.size()) + " runs it judges." +
                         forged_note,
                     at);
    }
  }
  const sandbox::ending end = sandbox::ending_of(s.wait_status);
  std::string how = how_process_ended(s.wait_status);
  std::string limit_note;
  if (end.signalled) {
    how = std::string("crashed with signal ") + std::to_string(end.code) + " (" + strsignal(end.code) + ")";
    if (end.code == SIGXCPU)
      limit_note = " It used up the CPU time a check may use (" + std::to_string(limit.cpu_seconds) + " s).";
    else if (end.code == SIGXFSZ)
      limit_note = " It wrote a file larger than the sandbox allows (" + std::to_string(limit.file_mb) + " MiB).";
    else if (end.code == SIGKILL && s.stopped == supervised::stop::no)
      limit_note = " Something outside the check killed it: the machine may have run out of memory "
                   "(the check may use " + std::to_string(limit.memory_mb) + " MiB, --memory-limit).";
  } else if (end.code != 0) {
    // bwrap or the runner could not start: their own words say why.
    const std::string said = tail_lines(s.output, 6);
    if (!said.empty()) limit_note = " Its last words:\n" + said + "\n ";
  }
  // A run judged wrong stays wrong, whatever the runner did after.
  if (s.stopped == supervised::stop::no && judge.verdict) return summarize(*judge.verdict);
  return interpret(spec, options, s, at, timeout_seconds, program_seconds, how, limit_note);
}

}  // namespace

std::variant<traced_run, tl::sim::diagnostic> run_traced_sandboxed(
    const puzzle_spec& spec, const module_options& modules, std::size_t case_index,
    std::uint64_t seed, std::optional<std::size_t> kernel_index, tl::sim::order order,
    double timeout_seconds) {
  const module_ref ref{&spec, impl::stub, backend::simulator};
  if (modules.build) {
    auto built = build_modules({ref}, modules);
    if (built[0]) return *built[0];
  }
  const auto k = kernel_index ? kernel_index : kernel_for_case(spec, case_index);
  if (case_index >= spec.cases.size() || !k || *k >= spec.kernels.size()) {
    tl::sim::diagnostic d;
    d.kind = tl::sim::kind::crash;
    d.message = "no block sizes of this puzzle fit this case";
    return d;
  }
  // What the run is, as this process knows it: the runner's claims fill in the rest.
  traced_run shape;
  shape.spec = &spec;
  shape.which = impl::stub;
  shape.kernel_file = shown_kernel_file(spec, impl::stub, modules);
  shape.case_index = case_index;
  shape.sizes = spec.cases[case_index].sizes;
  shape.kernel_index = *k;
  shape.blocks = spec.kernels[*k].blocks;
  shape.dtype = spec.kernels[*k].dtype;
  shape.grid = spec.grid(shape.sizes, shape.blocks);
  shape.order = tl::sim::order_name(order);
  shape.tensors = make_case(spec, spec.cases[case_index], seed, case_index, shape.dtype, false).tensors;

  check_options options;
  options.which = impl::stub;
  options.seed = seed;
  options.modules = modules;
  auto started = start_runner(spec, options, timeout_seconds,
                              {"--trace", std::to_string(case_index) + "," + std::to_string(*k) +
                                              "," + shape.order});
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&started)) return *problem;
  sandboxed_runner& runner = std::get<sandboxed_runner>(started);
  std::optional<std::variant<traced_run, tl::sim::diagnostic>> result;
  std::string problem;
  runner.child.talk = [&](std::string& in, std::string& out) {
    (void)out;
    const auto h = channel::peek(in);
    if (!h) return true;
    if (result || h->type != channel::trace_message) {
      problem = result ? "more after the traced run" : "a message of a kind the checker never sends";
      return false;
    }
    if (h->length > (std::uint64_t{1} << 30)) {
      problem = "a traced run longer than any run's";
      return false;
    }
    if (in.size() < channel::header_size + h->length) return true;
    result = channel::decode_traced(in.substr(channel::header_size, h->length), shape, problem);
    in.erase(0, channel::header_size + h->length);
    return result.has_value();
  };
  const supervised s = supervise(runner.child, runner.where, timeout_seconds, timeout_seconds);
  const progress at = sanitized(*runner.where);
  ::munmap(runner.where, sizeof(progress));
  runner.group.release();

  tl::sim::diagnostic d;
  if (auto finding = sandbox_finding(s, at, problem)) {
    d.kind = tl::sim::kind::sandbox;
    d.message = *finding;
  } else if (at.runner_problem[0]) {
    d.kind = tl::sim::kind::crash;
    d.message = "crash: the sandbox could not be set up: " + std::string(at.runner_problem) +
                ". Try again; --no-sandbox runs the kernel without one.";
  } else if (s.stopped != supervised::stop::no) {
    d.kind = tl::sim::kind::op_budget;
    d.message = "op-budget: the run did not finish within " + seconds_text(timeout_seconds) +
                ". Is there a loop that never ends? 'tilepuzzles check " +
                std::to_string(spec.number) + "' says where it stopped.";
  } else if (result) {
    return std::move(*result);
  } else {
    d.kind = tl::sim::kind::crash;
    const sandbox::ending end = sandbox::ending_of(s.wait_status);
    const std::string how = end.signalled ? "crashed with signal " + std::to_string(end.code) +
                                                " (" + strsignal(end.code) + ")"
                                          : how_process_ended(s.wait_status);
    d.message = "crash: the kernel " + how + " while it ran. " +
                "'tilepuzzles check " + std::to_string(spec.number) + "' says where.";
  }
  return d;
}

isolated_report check_isolated(const puzzle_spec& spec, const check_options& options,
                               double timeout_seconds, double program_seconds) {
  if (options.modules.sandbox && options.which == impl::stub) {
    if (options.gpu && gpu_enabled(spec)) {
      // The GPU only once the simulator passes, as without the sandbox: a stub that fails there
      // costs no GPU module's compile (nvcc, in the sandbox, before the runner starts). A solved
      // one then runs on the GPU in a second runner, which makes only the GPU runs (gpu_only):
      // its report counts the first one's simulator runs, as one runner of both would.
      check_options simulator_only = options;
      simulator_only.gpu = false;
      std::optional<puzzle_report> simulator_part;
      isolated_report first = check_sandboxed(spec, simulator_only, timeout_seconds,
                                              program_seconds, nullptr, &simulator_part);
      if (first.status != status::solved || !simulator_part) return first;
      check_options on_gpu = options;
      on_gpu.gpu_only = true;
      return check_sandboxed(spec, on_gpu, timeout_seconds, program_seconds, &*simulator_part);
    }
    return check_sandboxed(spec, options, timeout_seconds, program_seconds);
  }
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
    child_options.on_case = [where](const run_position& at) { note_case(where, at); };
    tl::sim::set_progress_tracker(&where->tracker);
    write_all(fds[1], encode(summarize(check_puzzle(spec, child_options))));
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }

  ::close(fds[1]);
  const supervised s = supervise({child, fds[0], -1, {}, {}}, where, timeout_seconds, program_seconds);
  const progress at = *where;
  ::munmap(shared, sizeof(progress));
  return interpret(spec, options, s, at, timeout_seconds, program_seconds,
                   how_process_ended(s.wait_status), "");
}

void add_note(isolated_report& r, const puzzle_spec& spec, const std::string& kernel_file,
              const std::string& note) {
  if (r.details.empty())
    r.details = "--- " + std::to_string(spec.number) + " " + spec.id + " (" + kernel_file + ")\n";
  r.details += "  note: " + note + "\n";
  const std::size_t end = r.json.rfind('}');
  if (end != std::string::npos) r.json.insert(end, ", \"note\": " + json_string(note));
}

std::vector<std::string> runner_arguments(const puzzle_spec& spec, const check_options& options,
                                          long memory_mb) {
  std::vector<std::string> arguments = {"--puzzle", spec.id,
                                        "--seed", std::to_string(options.seed),
                                        "--orders", orders_text(options.orders),
                                        "--op-budget", std::to_string(options.op_budget),
                                        "--memory-mb", std::to_string(memory_mb)};
  if (!options.modules.puzzles_dir.empty())
    arguments.insert(arguments.end(), {"--puzzles", options.modules.puzzles_dir});
  if (!options.large_tier) arguments.insert(arguments.end(), {"--large-tier", "0"});
  if (!options.size_bounds) arguments.insert(arguments.end(), {"--size-bounds", "0"});
  if (!options.probe_other) arguments.insert(arguments.end(), {"--probe-other", "0"});
  const bool gpu = options.gpu && gpu_enabled(spec);
  if (gpu) arguments.insert(arguments.end(), {"--gpu", "1"});
  if (gpu && options.gpu_only) arguments.insert(arguments.end(), {"--gpu-only", "1"});
  return arguments;
}

runner_request read_runner_arguments(const std::vector<std::string>& arguments) {
  runner_request r;
  check_options& options = r.options;
  std::string orders = "forward,reverse,shuffle";
  for (std::size_t i = 0; i + 1 < arguments.size(); i += 2) {
    const std::string& a = arguments[i];
    const std::string& value = arguments[i + 1];
    if (a == "--puzzle") r.puzzle_id = value;
    else if (a == "--seed") options.seed = std::stoull(value);
    else if (a == "--orders") orders = value;
    else if (a == "--op-budget") options.op_budget = std::stoull(value);
    else if (a == "--puzzles") r.puzzles_dir = value;
    else if (a == "--memory-mb") r.memory_mb = std::stol(value);
    else if (a == "--large-tier") options.large_tier = value != "0";
    else if (a == "--size-bounds") options.size_bounds = value != "0";
    else if (a == "--probe-other") options.probe_other = value != "0";
    else if (a == "--trace") r.trace = value;  // CASE,KERNEL,ORDER: one traced run (show, --html)
    else if (a == "--gpu") options.gpu = value != "0";
    else if (a == "--gpu-only") options.gpu_only = value != "0";
  }
  options.orders.clear();
  std::istringstream list(orders);
  for (std::string o; std::getline(list, o, ',');)
    options.orders.push_back(o == "reverse" ? tl::sim::order::reverse
                             : o == "shuffle" ? tl::sim::order::shuffle
                                              : tl::sim::order::forward);
  return r;
}

namespace {

// The runner's end of its channel: a whole message of `type`, or the end of the runner when the
// supervisor is gone or says what it never says.
std::string receive(char type) {
  std::string in;
  char buf[65536];
  for (;;) {
    if (const auto h = channel::peek(in)) {
      if (h->type != type) std::_Exit(6);
      if (in.size() >= channel::header_size + h->length) return in.substr(channel::header_size, h->length);
    }
    const ssize_t n = ::read(runner_report_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(6);
    in.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

int sandboxed_run_main(int argc, char** argv) {
  runner_request request = read_runner_arguments(std::vector<std::string>(argv + std::min(argc, 2), argv + argc));
  const std::string& id = request.puzzle_id;
  const std::string& puzzles_dir = request.puzzles_dir;
  const std::string& trace = request.trace;
  const long memory_mb = request.memory_mb;
  check_options& options = request.options;
  progress* where = shared_progress(runner_progress_fd);
  const puzzle_spec* spec = find_puzzle(id);
  if (!where || !spec) {
    std::fprintf(stderr, "tilepuzzles __sandbox-run: %s\n",
                 !where ? "no shared page on descriptor 4" : ("no puzzle " + id).c_str());
    return 2;
  }
  auto give_up = [&](const std::string& why) {
    std::snprintf(where->runner_problem, sizeof where->runner_problem, "%s", why.c_str());
    std::_Exit(4);
  };
  // The CUDA runtime starts before the filter and before any of the stub's code is loaded: it
  // opens the driver's device files and starts threads, which the filter would stop.
  if (options.gpu)
    if (const std::string e = gpu::initialize(); !e.empty()) give_up("the GPU could not be used in the sandbox: " + e);
  syscall_filter::report_into(&where->stopped);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);

  options.which = impl::stub;
  options.modules.puzzles_dir = puzzles_dir;
  options.modules.build = false;
  options.simulator_modules_built = true;
  std::size_t trace_case = 0, trace_kernel = 0;
  std::string trace_order = "forward";
  if (!trace.empty()) {
    std::istringstream t(trace);
    char comma = 0;
    if (!(t >> trace_case >> comma >> trace_kernel >> comma >> trace_order) ||
        trace_case >= spec->cases.size() || trace_kernel >= spec->kernels.size())
      give_up("--trace " + trace + " names no run of puzzle " + spec->id);
  }

  where->phase = progress::loading_module;
  if (const std::string e = syscall_filter::install_loading_stage(options.gpu); !e.empty()) give_up(e);
  auto loaded = load_module_from_fd({spec, impl::stub, backend::simulator}, options.modules,
                                    runner_module_fd);
  if (options.gpu && std::holds_alternative<loaded_module>(loaded)) {
    // Its launchers run the kernels on the GPU after the simulator's runs, through the CUDA
    // runtime, which the kernel stage would stop (syscall_filter.hpp): the loading stage stays.
    auto loaded_gpu = load_module_from_fd({spec, impl::stub, backend::gpu}, options.modules,
                                          runner_gpu_module_fd);
    if (auto* problem = std::get_if<tl::sim::diagnostic>(&loaded_gpu)) loaded = *problem;
    else options.gpu_launchers = std::get<loaded_module>(loaded_gpu).launchers;
  } else if (const std::string e = syscall_filter::install_kernel_stage(); !e.empty()) {
    give_up(e);
  }
  where->phase = progress::checking;

  if (!trace.empty()) {
    // One traced run, its maps drawn by the supervisor.
    std::string message;
    if (auto* problem = std::get_if<tl::sim::diagnostic>(&loaded)) {
      message = channel::encode_traced(nullptr, problem);
    } else {
      tl::sim::set_progress_tracker(&where->tracker);
      const tl::sim::order order = trace_order == "reverse" ? tl::sim::order::reverse
                                   : trace_order == "shuffle" ? tl::sim::order::shuffle
                                                              : tl::sim::order::forward;
      auto run = run_traced_with(*spec, impl::stub, shown_kernel_file(*spec, impl::stub, options.modules),
                                 std::get<loaded_module>(loaded).launchers, trace_case, options.seed,
                                 trace_kernel, order);
      if (auto* traced = std::get_if<traced_run>(&run)) message = channel::encode_traced(traced, nullptr);
      else message = channel::encode_traced(nullptr, &std::get<tl::sim::diagnostic>(run));
    }
    write_all(runner_report_fd, message);
    std::_Exit(0);
  }

  const std::string memory_note =
      "\n  A check may use " + std::to_string(memory_mb) +
      " MiB of memory in the sandbox (tilepuzzles check --memory-limit MIB to change it); the "
      "kernel asked for more.";
  puzzle_report report;
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&loaded)) {
    report.spec = spec;
    report.which = impl::stub;
    report.kernel_file = shown_kernel_file(*spec, impl::stub, options.modules);
    report.diagnostics.push_back(*problem);
  } else {
    options.simulator_launchers = std::get<loaded_module>(loaded).launchers;
    options.on_case = [where](const run_position& at) { note_case(where, at); };
    // The outputs of each judged run go to the supervisor, which made the references; this
    // process never has them unless a run is wrong.
    options.judge = [](std::size_t number, const judged_run& run,
                       const std::vector<tensor>& got) -> std::optional<std::vector<tensor>> {
      write_all(runner_report_fd, channel::encode_outputs(number, run, got));
      std::vector<tensor> expected = got;
      const auto right = channel::decode_judgment(receive(channel::judgment_message), expected);
      if (!right) std::_Exit(6);
      if (*right) return std::nullopt;
      return expected;
    };
    tl::sim::set_progress_tracker(&where->tracker);
    try {
      report = check_puzzle(*spec, options);
    } catch (const std::bad_alloc&) {
      report = puzzle_report{};
      report.spec = spec;
      report.which = impl::stub;
      report.kernel_file = shown_kernel_file(*spec, impl::stub, options.modules);
      tl::sim::diagnostic d;
      d.kind = tl::sim::kind::crash;
      d.message = "crash: the check ran out of memory outside the kernel's programs (" +
                  std::string(where->where[0] ? where->where : "before the first case") + ")." +
                  memory_note;
      report.diagnostics.push_back(std::move(d));
    }
  }
  for (auto& d : report.diagnostics)
    if (d.kind == tl::sim::kind::crash && d.message.find("std::bad_alloc") != std::string::npos)
      d.message += memory_note;
  write_all(runner_report_fd, channel::encode_report(report));
  std::_Exit(0);
}

}  // namespace tp
