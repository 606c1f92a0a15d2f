#include "checker/sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#ifndef TILEPUZZLES_BINARY_DIR
#error "checker/sandbox.cpp needs the build's definitions (see CMakeLists.txt)"
#endif

extern char** environ;

namespace tp::sandbox {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string current_directory() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) ? buf : "/";
}

std::string absolute(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path.front() == '/') return path;
  return cwd + "/" + path;
}

bool under(const std::string& path, const std::string& dir) {
  return path == dir || path.rfind(dir + "/", 0) == 0;
}

// bubblewrap: TILEPUZZLES_BWRAP names it (the tests point it at a missing file to act out a
// machine without one), else the first `bwrap` on PATH.
std::string bwrap_path() {
  if (const char* named = std::getenv("TILEPUZZLES_BWRAP"); named && *named) return named;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const std::size_t colon = dirs.find(':', at);
    const std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    if (!dir.empty() && ::access((dir + "/bwrap").c_str(), X_OK) == 0) return dir + "/bwrap";
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  return {};
}

// Older bubblewraps (before 0.7) have no --size; their /tmp is then bounded by the file-size and
// memory limits only.
bool& tmpfs_size_supported() {
  static bool supported = true;
  return supported;
}

// The system's files every sandboxed command needs: programs, libraries, the dynamic linker's
// cache, the compiler's alternatives. Not /home, /root, /etc at large, nor the project itself.
void add_system(std::vector<std::string>& args) {
  args.insert(args.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    if (is_symlink(top)) {
      char target[PATH_MAX];
      const ssize_t n = ::readlink(top, target, sizeof target - 1);
      if (n <= 0) continue;
      target[n] = '\0';
      args.insert(args.end(), {"--symlink", target, top});
    } else if (exists(top)) {
      args.insert(args.end(), {"--ro-bind", top, top});
    }
  }
  for (const char* etc : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                          "/etc/alternatives"})
    args.insert(args.end(), {"--ro-bind-try", etc, etc});
}

// The project's headers: what a module's compile includes. Never solutions/ (nor bench/ and
// tests/, which hold kernels of their own, nor the build).
void add_project_headers(std::vector<std::string>& args) {
  const std::string root = TILEPUZZLES_SOURCE_DIR;
  for (const char* dir : {"tile", "simulator", "checker", "cuda"}) {
    const std::string path = root + "/" + dir;
    if (exists(path)) args.insert(args.end(), {"--ro-bind", path, path});
  }
}

// What a process that runs kernels on the GPU needs besides: the driver's device files, /sys
// (the driver reads the PCI topology), and the variables that pick the GPU or find its driver.
void add_gpu(std::vector<std::string>& args) {
  if (DIR* dev = ::opendir("/dev")) {
    std::vector<std::string> nodes;
    while (const dirent* e = ::readdir(dev))
      if (std::string(e->d_name).rfind("nvidia", 0) == 0) nodes.push_back(std::string("/dev/") + e->d_name);
    ::closedir(dev);
    std::sort(nodes.begin(), nodes.end());
    for (const std::string& node : nodes) args.insert(args.end(), {"--dev-bind", node, node});
  }
  args.insert(args.end(), {"--ro-bind-try", "/sys", "/sys"});
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
                           "NVIDIA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"})
    if (const char* value = std::getenv(name)) args.insert(args.end(), {"--setenv", name, value});
  // The driver's library where LD_LIBRARY_PATH finds it outside /usr (absolute entries only).
  if (const char* dirs = std::getenv("LD_LIBRARY_PATH")) {
    std::string list = dirs;
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t colon = std::min(list.find(':', at), list.size());
      const std::string dir = list.substr(at, colon - at);
      if (!dir.empty() && dir.front() == '/' && !under(dir, "/usr"))
        args.insert(args.end(), {"--ro-bind-try", dir, dir});
      at = colon + 1;
    }
  }
}

long parse_long(const char* s, long fallback) {
  if (!s || !*s) return fallback;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  return end && *end == '\0' && v > 0 ? v : fallback;
}

}  // namespace

std::string program() { return std::string(TILEPUZZLES_BINARY_DIR) + "/tilepuzzles"; }

std::vector<std::string> command_line(const view& what, const limits& limit,
                                      const std::vector<std::string>& command) {
  std::vector<std::string> args = {bwrap_path(), "--unshare-all", "--cap-drop", "ALL",
                                   "--die-with-parent", "--new-session", "--clearenv"};
  const char* path = std::getenv("PATH");
  args.insert(args.end(), {"--setenv", "PATH", path && *path ? path : "/usr/bin:/bin"});
  args.insert(args.end(), {"--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
                           "--setenv", "LC_ALL", "C"});
  add_system(args);
  args.insert(args.end(), {"--proc", "/proc", "--dev", "/dev"});
  if (tmpfs_size_supported())
    args.insert(args.end(), {"--size", std::to_string(limit.scratch_mb * 1024 * 1024)});
  args.insert(args.end(), {"--tmpfs", "/tmp"});
  add_project_headers(args);
  if (what.gpu) add_gpu(args);
  // The program that runs sandboxed checks and applies the limits inside, with its runtime.
  for (const std::string& file : {program(), std::string(TILEPUZZLES_RUNTIME)})
    args.insert(args.end(), {"--ro-bind", file, file});
  for (const std::string& p : what.read_only)
    if (!p.empty() && exists(p)) args.insert(args.end(), {"--ro-bind", p, p});
  for (const std::string& p : what.writable)
    if (!p.empty() && exists(p)) args.insert(args.end(), {"--bind", p, p});
  args.insert(args.end(), {"--dir", what.chdir, "--chdir", what.chdir});
  // The limits are set inside, by the program itself: a process count set before bwrap would be
  // counted against every process of the user on the machine, inside the sandbox only against
  // the sandbox's own.
  args.insert(args.end(), {"--", program(), "__limits",
                           "--memory-mb", std::to_string(limit.memory_mb),
                           "--cpu-seconds", std::to_string(limit.cpu_seconds),
                           "--file-mb", std::to_string(limit.file_mb),
                           "--processes", std::to_string(limit.processes)});
  if (limit.data_only) args.insert(args.end(), {"--memory-kind", "data"});
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

void apply_limits(const limits& limit) {
  auto set = [](int resource, rlim_t value) {
    struct rlimit r {};
    if (::getrlimit(resource, &r) != 0) return;
    // Never above the hard limit the process already has.
    if (r.rlim_max != RLIM_INFINITY && value > r.rlim_max) value = r.rlim_max;
    r.rlim_cur = value;
    r.rlim_max = value;
    ::setrlimit(resource, &r);
  };
  const rlim_t mib = 1024 * 1024;
  if (limit.memory_mb > 0)
    set(limit.data_only ? RLIMIT_DATA : RLIMIT_AS, static_cast<rlim_t>(limit.memory_mb) * mib);
  if (limit.cpu_seconds > 0) set(RLIMIT_CPU, static_cast<rlim_t>(limit.cpu_seconds));
  if (limit.file_mb > 0) set(RLIMIT_FSIZE, static_cast<rlim_t>(limit.file_mb) * mib);
  if (limit.processes > 0) set(RLIMIT_NPROC, static_cast<rlim_t>(limit.processes));
  set(RLIMIT_CORE, 0);
}

ending ending_of(int wait_status) {
  if (WIFSIGNALED(wait_status)) return {true, WTERMSIG(wait_status)};
  const int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1;
  if (code > 128 && code < 128 + 65) return {true, code - 128};
  return {false, code};
}

const std::optional<std::string>& unavailable() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
#ifndef __linux__
    return std::string("sandboxes need Linux (bubblewrap and user namespaces)");
#else
    if (bwrap_path().empty())
      return std::string("bubblewrap (bwrap) is not installed: scripts/install-deps.sh installs it");
    if (::access(bwrap_path().c_str(), X_OK) != 0)
      return "bubblewrap is not at " + bwrap_path();
    auto attempt = [](std::string& said) -> int {
      view v;
      const std::vector<std::string> args = command_line(v, limits{}, {"/bin/true"});
      int fds[2];
      if (::pipe(fds) != 0) return -1;
      std::fflush(nullptr);
      const pid_t child = ::fork();
      if (child < 0) return -1;
      if (child == 0) {
        ::dup2(fds[1], 2);
        ::dup2(fds[1], 1);
        ::close(fds[0]);
        ::close(fds[1]);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "could not run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
      }
      ::close(fds[1]);
      char buf[1024];
      for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        said.append(buf, static_cast<std::size_t>(n));
      }
      ::close(fds[0]);
      int status = 0;
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    std::string said;
    int status = attempt(said);
    if (status != 0 && said.find("--size") != std::string::npos) {
      tmpfs_size_supported() = false;
      said.clear();
      status = attempt(said);
    }
    if (status == 0) return std::nullopt;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    return "bubblewrap could not make one (" + (said.empty() ? "exit status " + std::to_string(status) : said) +
           ")";
#endif
  }();
  return reason;
}

namespace {

std::string read_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

bool write_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The directory under which this process may make a pids cgroup: its own pids cgroup, in the
// v1 hierarchy of the pids controller or in the v2 hierarchy where pids is enabled (or can be)
// for its children; empty where there is none it may write.
std::string pids_parent() {
  const std::string own = read_file("/proc/self/cgroup");
  std::size_t at = 0;
  std::string v1, v2;
  while (at < own.size()) {
    const std::size_t end = std::min(own.find('\n', at), own.size());
    const std::string line = own.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty() && line.compare(0, first, "0") == 0) v2 = path;
    std::size_t c = 0;
    while (c <= controllers.size()) {
      const std::size_t comma = std::min(controllers.find(',', c), controllers.size());
      if (controllers.compare(c, comma - c, "pids") == 0) v1 = path;
      c = comma + 1;
    }
  }
  auto usable = [](const std::string& dir) { return ::access(dir.c_str(), W_OK) == 0; };
  if (!v1.empty() && exists("/sys/fs/cgroup/pids/cgroup.procs")) {
    const std::string dir = "/sys/fs/cgroup/pids" + (v1 == "/" ? std::string() : v1);
    if (usable(dir)) return dir;
  }
  if (!v2.empty() && exists("/sys/fs/cgroup/cgroup.controllers")) {
    const std::string dir = "/sys/fs/cgroup" + (v2 == "/" ? std::string() : v2);
    const std::string enabled = read_file(dir + "/cgroup.subtree_control");
    if (usable(dir) && (enabled.find("pids") != std::string::npos ||
                        write_file(dir + "/cgroup.subtree_control", "+pids")))
      return dir;
  }
  return {};
}

}  // namespace

process_group& process_group::operator=(process_group&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    procs_fd_ = other.procs_fd_;
    other.path_.clear();
    other.procs_fd_ = -1;
  }
  return *this;
}

process_group process_group::make(const limits& limit) {
  process_group group;
  // RLIMIT_NPROC holds for every other user.
  if (::getuid() != 0 || limit.processes <= 0) return group;
  static const std::string parent = pids_parent();
  if (parent.empty()) return group;
  static int made = 0;
  const std::string path = parent + "/tilepuzzles-" + std::to_string(::getpid()) + "-" + std::to_string(made++);
  if (::mkdir(path.c_str(), 0755) != 0) return group;
  group.path_ = path;
  if (!write_file(path + "/pids.max", std::to_string(limit.processes))) {
    group.release();
    return group;
  }
  group.procs_fd_ = ::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (group.procs_fd_ < 0) group.release();
  return group;
}

void process_group::join() const {
  if (procs_fd_ < 0) return;
  // The process's id in decimal, without the allocating functions fork forbids.
  char digits[24];
  int n = 0;
  for (long pid = ::getpid(); pid > 0 && n < 20; pid /= 10) digits[n++] = static_cast<char>('0' + pid % 10);
  char text[24];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  if (::write(procs_fd_, text, static_cast<std::size_t>(n)) != n) ::_exit(126);
}

void process_group::release() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
  procs_fd_ = -1;
  if (path_.empty()) return;
  // The sandbox has ended (bwrap, the init of its PID namespace, took every process in it
  // along); the kernel may take a moment to see the group empty.
  for (int attempt = 0; attempt < 50 && ::rmdir(path_.c_str()) != 0 && errno == EBUSY; ++attempt)
    ::usleep(2000);
  path_.clear();
}

std::optional<std::string> process_limit() {
  if (::getuid() != 0) return std::string("RLIMIT_NPROC");
  limits probe;
  process_group group = process_group::make(probe);
  if (group.active()) return std::string("a pids cgroup");
  return std::nullopt;
}

std::vector<std::string> compile_environment(bool sandboxed, const limits& limit) {
  if (!sandboxed) return {};
  return {"TILEPUZZLES_SANDBOX=" + program(),
          "TILEPUZZLES_SANDBOX_MEMORY_MB=" + std::to_string(limit.memory_mb)};
}

int compile_main(int argc, char** argv) {
  std::string kernel;
  limits limit;
  // A compile of any module takes seconds; a compile that takes minutes of CPU is a template
  // that never ends, or an attack on the grader's machine.
  limit.cpu_seconds = 600;
  int at = 2;
  for (; at < argc; ++at) {
    const std::string a = argv[at];
    if (a == "--") {
      ++at;
      break;
    }
    if (a == "--kernel" && at + 1 < argc) kernel = argv[++at];
    else if (a == "--memory-mb" && at + 1 < argc) limit.memory_mb = parse_long(argv[++at], limit.memory_mb);
  }
  if (at >= argc) {
    std::fprintf(stderr, "tilepuzzles __sandbox-compile: no command after --\n");
    return 2;
  }
  std::vector<std::string> command(argv + at, argv + argc);
  const std::string cwd = current_directory();
  view v;
  v.chdir = cwd;
  if (!kernel.empty()) v.read_only.push_back(directory_of(absolute(kernel, cwd)));
  // The command itself, where it is not one of the system's programs (the GPU module's probe, a
  // compiler installed under a prefix of its own, with the rest of its toolchain: PREFIX/bin/g++
  // runs PREFIX/libexec's and reads PREFIX/lib's files); nvcc's host compiler likewise.
  auto add_program = [&](const std::string& program) {
    if (program.empty() || program.front() != '/' || under(program, "/usr")) return;
    const std::string dir = directory_of(program);
    const bool in_bin = dir.size() > 4 && dir.compare(dir.size() - 4, 4, "/bin") == 0;
    v.read_only.push_back(in_bin ? directory_of(dir) : program);
  };
  add_program(command[0]);
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    const bool next = i + 1 < command.size();
    if ((a == "-o" || a == "-MF") && next) v.writable.push_back(directory_of(absolute(command[i + 1], cwd)));
    else if (a == "-include" && next) v.read_only.push_back(directory_of(absolute(command[i + 1], cwd)));
    else if ((a == "-ccbin" || a == "--compiler-bindir") && next) add_program(command[i + 1]);
    else if (a.rfind("-ccbin=", 0) == 0) add_program(a.substr(7));
    else if (a.rfind("--compiler-bindir=", 0) == 0) add_program(a.substr(18));
    // A library's headers outside /usr (Eigen unpacked under a prefix of one's own): system
    // directories only, never a plain -I, which names the project's root, solutions/ and all.
    else if (a == "-isystem" && next) v.read_only.push_back(absolute(command[i + 1], cwd));
    else if (a.size() > 8 && a.compare(0, 8, "-isystem") == 0) v.read_only.push_back(absolute(a.substr(8), cwd));
    else if (a.size() > 1 && a[0] == '@') {
      // A response file (the GPU module's warps probe: cmake/compile-logged.sh), one argument a
      // line with its other characters escaped: its -isystem directories are shown as well.
      const std::string file = absolute(a.substr(1), cwd);
      v.read_only.push_back(file);
      std::istringstream lines(read_file(file));
      std::string previous;
      for (std::string line; std::getline(lines, line); previous = line) {
        std::string unescaped;
        for (std::size_t c = 0; c < line.size(); ++c)
          unescaped += line[c] == '\\' && c + 1 < line.size() ? line[++c] : line[c];
        line = unescaped;
        if (previous == "-isystem") v.read_only.push_back(absolute(line, cwd));
        else if (line.rfind("-isystem=", 0) == 0) v.read_only.push_back(absolute(line.substr(9), cwd));
      }
    }
    else if (a.size() > 2 && a.compare(0, 2, "-o") == 0 && a[2] != '-')
      v.writable.push_back(directory_of(absolute(a.substr(2), cwd)));
  }
  std::vector<std::string> args = command_line(v, limit, command);
  std::vector<char*> bwrap_argv;
  for (auto& a : args) bwrap_argv.push_back(a.data());
  bwrap_argv.push_back(nullptr);
  auto could_not = [&] {
    std::fprintf(stderr,
                 "tilepuzzles: could not start the compile's sandbox (%s: %s). Check again with "
                 "--no-sandbox to compile without one.\n",
                 bwrap_argv[0], std::strerror(errno));
    return 127;
  };
  std::fflush(nullptr);
  process_group group = process_group::make(limit);
  if (!group.active()) {
    ::execv(bwrap_argv[0], bwrap_argv.data());
    return could_not();
  }
  // A group to release once the sandbox has ended: bwrap runs in a child, and its exit status
  // is this process's.
  const pid_t child = ::fork();
  if (child < 0) return could_not();
  if (child == 0) {
    group.join();
    ::execv(bwrap_argv[0], bwrap_argv.data());
    ::_exit(could_not());
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  group.release();
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int limits_main(int argc, char** argv) {
  limits limit{0, 0, 0, 0, 0};
  int at = 2;
  for (; at < argc; ++at) {
    const std::string a = argv[at];
    if (a == "--") {
      ++at;
      break;
    }
    if (at + 1 >= argc) break;
    if (a == "--memory-mb") limit.memory_mb = parse_long(argv[++at], 0);
    else if (a == "--cpu-seconds") limit.cpu_seconds = parse_long(argv[++at], 0);
    else if (a == "--file-mb") limit.file_mb = parse_long(argv[++at], 0);
    else if (a == "--processes") limit.processes = parse_long(argv[++at], 0);
    else if (a == "--memory-kind") limit.data_only = std::string(argv[++at]) == "data";
  }
  if (at >= argc) {
    std::fprintf(stderr, "tilepuzzles __limits: no command after --\n");
    return 2;
  }
  apply_limits(limit);
  ::execvp(argv[at], argv + at);
  std::fprintf(stderr, "tilepuzzles: could not run %s in the sandbox: %s\n", argv[at],
               std::strerror(errno));
  return 127;
}

}  // namespace tp::sandbox
