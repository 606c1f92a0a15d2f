#include "checker/syscall_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if TILEPUZZLES_SECCOMP
#include <seccomp.h>
#endif

namespace tp::syscall_filter {

namespace {

stopped_call* g_record = nullptr;

// Which argument of a call is a path (for the report), by system call number; -1 for none.
constexpr int max_number = 1024;
signed char g_path_argument[max_number];

constexpr int write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;

void on_sigsys(int, siginfo_t* info, void* context) {
  stopped_call* r = g_record;
  if (r) {
    r->number = info->si_syscall;
    r->arch = info->si_arch;
    const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
    const greg_t* g = uc->uc_mcontext.gregs;
    const long long values[6] = {g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9]};
#elif defined(__aarch64__)
    const long long values[6] = {
        static_cast<long long>(uc->uc_mcontext.regs[0]), static_cast<long long>(uc->uc_mcontext.regs[1]),
        static_cast<long long>(uc->uc_mcontext.regs[2]), static_cast<long long>(uc->uc_mcontext.regs[3]),
        static_cast<long long>(uc->uc_mcontext.regs[4]), static_cast<long long>(uc->uc_mcontext.regs[5])};
#else
    const long long values[6] = {};
    (void)uc;
#endif
    for (int i = 0; i < 6; ++i) r->args[i] = values[i];
    const int n = info->si_syscall;
    if (n >= 0 && n < max_number && g_path_argument[n] >= 0) {
      // The stub's own pointer, which its call just passed: readable unless the stub lied.
      const char* path = reinterpret_cast<const char*>(values[static_cast<int>(g_path_argument[n])]);
      if (path) {
        std::size_t i = 0;
        for (; i + 1 < sizeof r->path && path[i]; ++i) r->path[i] = path[i];
        r->path[i] = '\0';
      }
    }
    r->set = 1;
  }
  ::syscall(SYS_exit_group, 3);
}

#if TILEPUZZLES_SECCOMP
int number_of(const char* name) { return seccomp_syscall_resolve_name(name); }

void note_path_arguments() {
  static bool done = false;
  if (done) return;
  done = true;
  std::memset(g_path_argument, -1, sizeof g_path_argument);
  const std::initializer_list<std::pair<const char*, int>> paths = {
      {"open", 0},     {"creat", 0},    {"openat", 1},    {"openat2", 1},   {"execve", 0},
      {"execveat", 1}, {"unlink", 0},   {"unlinkat", 1},  {"rename", 0},    {"renameat", 1},
      {"renameat2", 1}, {"mkdir", 0},   {"mkdirat", 1},   {"rmdir", 0},     {"link", 0},
      {"linkat", 1},   {"symlink", 1},  {"symlinkat", 2}, {"chmod", 0},     {"fchmodat", 1},
      {"chown", 0},    {"lchown", 0},   {"fchownat", 1},  {"truncate", 0},  {"mknod", 0},
      {"mknodat", 1},  {"utimes", 0},   {"utimensat", 1}, {"chdir", 0},     {"chroot", 0},
      {"stat", 0},     {"lstat", 0},    {"newfstatat", 1}, {"statx", 1},    {"access", 0},
      {"faccessat", 1}, {"faccessat2", 1}, {"readlink", 0}, {"readlinkat", 1}};
  for (const auto& [name, argument] : paths) {
    const int n = number_of(name);
    if (n >= 0 && n < max_number) g_path_argument[n] = static_cast<signed char>(argument);
  }
}

// Adds a rule for a call by name; a call this architecture does not have is skipped.
bool add(scmp_filter_ctx ctx, std::uint32_t action, const char* name) {
  const int n = number_of(name);
  if (n == __NR_SCMP_ERROR) return true;
  const int rc = seccomp_rule_add(ctx, action, n, 0);
  return rc == 0 || n < 0;
}

std::string load(scmp_filter_ctx ctx, const char* stage) {
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0)
    return std::string("could not install the ") + stage + " stage of the system-call filter: " +
           std::strerror(-rc);
  return {};
}

// Calls no kernel (and no static constructor of one) has a reason to make.
constexpr const char* never[] = {
    // processes and programs
    "fork", "vfork", "clone", "clone3", "execve", "execveat",
    // the network
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    // signals to other processes
    "kill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
    "pidfd_getfd",
    // other processes' memory, namespaces, the machine
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "unshare", "setns",
    "pivot_root", "chroot", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "io_uring_setup", "userfaultfd", "open_by_handle_at", "name_to_handle_at", "personality",
    "reboot", "kexec_load", "init_module", "finit_module", "delete_module", "swapon", "swapoff",
    "sethostname", "setdomainname", "settimeofday", "clock_settime", "adjtimex", "iopl", "ioperm",
    // changing files
    "creat", "openat2", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir",
    "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat",
    "chown", "fchown", "lchown", "fchownat", "truncate", "mknod", "mknodat", "utime", "utimes",
    "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
    "lremovexattr", "fremovexattr"};
#endif

}  // namespace

bool available() {
#if TILEPUZZLES_SECCOMP
  return true;
#else
  return false;
#endif
}

void report_into(stopped_call* record) {
  g_record = record;
#if TILEPUZZLES_SECCOMP
  note_path_arguments();
#endif
  struct sigaction action {};
  action.sa_sigaction = on_sigsys;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSYS, &action, nullptr);
}

std::string install_loading_stage(bool threads) {
#if TILEPUZZLES_SECCOMP
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return "could not make the system-call filter";
  bool ok = true;
  for (const char* name : never)
    if (!threads || (std::strcmp(name, "clone") != 0 && std::strcmp(name, "clone3") != 0))
      ok = add(ctx, SCMP_ACT_TRAP, name) && ok;
  if (threads) {
    const auto thread = static_cast<scmp_datum_t>(CLONE_THREAD);
    ok = seccomp_rule_add(ctx, SCMP_ACT_TRAP, number_of("clone"), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, thread, 0)) == 0 && ok;
    ok = add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3") && ok;
  }
  // Opening a file to write it, in any of the ways open and openat say so.
  for (const int flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
    const auto f = static_cast<scmp_datum_t>(flag);
    if (number_of("open") >= 0)
      ok = seccomp_rule_add(ctx, SCMP_ACT_TRAP, number_of("open"), 1,
                            SCMP_A1(SCMP_CMP_MASKED_EQ, f, f)) == 0 && ok;
    ok = seccomp_rule_add(ctx, SCMP_ACT_TRAP, number_of("openat"), 1,
                          SCMP_A2(SCMP_CMP_MASKED_EQ, f, f)) == 0 && ok;
  }
  // Signals to itself only (abort() raises SIGABRT with tgkill); and SIGSYS stays the runner's.
  ok = seccomp_rule_add(ctx, SCMP_ACT_TRAP, number_of("tgkill"), 1,
                        SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(::getpid()))) == 0 && ok;
  ok = seccomp_rule_add(ctx, SCMP_ACT_TRAP, number_of("rt_sigaction"), 1,
                        SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(SIGSYS))) == 0 && ok;
  if (!ok) {
    seccomp_release(ctx);
    return "could not make the loading stage of the system-call filter";
  }
  return load(ctx, "loading");
#else
  return {};
#endif
}

std::string install_kernel_stage() {
#if TILEPUZZLES_SECCOMP
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) return "could not make the system-call filter";
  bool ok = true;
  // Computing: memory, the runner's own descriptors (the report pipe, the shared page), clocks,
  // randomness (std::random_device), its own signals, exit; and the file metadata the checker's
  // report reads (realpath of the stubs' directory). Opening any file is not among them.
  for (const char* name :
       {"read", "write", "readv", "writev", "pread64", "close", "lseek", "fstat", "newfstatat",
        "stat", "lstat", "statx", "readlink", "readlinkat", "getcwd", "mmap", "munmap",
        "mprotect", "mremap", "brk", "madvise", "futex", "exit", "exit_group", "rt_sigreturn",
        "rt_sigprocmask", "sigaltstack", "clock_gettime", "clock_getres", "gettimeofday", "time",
        "nanosleep", "clock_nanosleep", "getpid", "gettid", "getppid", "getuid", "geteuid",
        "getgid", "getegid", "sched_yield", "getrandom", "restart_syscall", "rseq",
        "set_robust_list", "getrlimit", "getrusage", "sysinfo", "uname", "fcntl"})
    ok = add(ctx, SCMP_ACT_ALLOW, name) && ok;
  ok = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number_of("tgkill"), 1,
                        SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(::getpid()))) == 0 && ok;
  ok = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number_of("rt_sigaction"), 1,
                        SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(SIGSYS))) == 0 && ok;
  // Reading its limits (glibc does), never setting them.
  ok = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number_of("prlimit64"), 1,
                        SCMP_A2(SCMP_CMP_EQ, 0)) == 0 && ok;
  if (!ok) {
    seccomp_release(ctx);
    return "could not make the kernel stage of the system-call filter";
  }
  return load(ctx, "kernel");
#else
  return {};
#endif
}

std::string name_of(int number, unsigned arch) {
#if TILEPUZZLES_SECCOMP
  if (char* name = seccomp_syscall_resolve_num_arch(arch ? arch : SCMP_ARCH_NATIVE, number)) {
    std::string s = name;
    std::free(name);
    return s;
  }
#else
  (void)arch;
#endif
  return "system call " + std::to_string(number);
}

std::string describe(const stopped_call& call) {
  const std::string name = name_of(call.number, call.arch);
  const std::string path = call.path[0] ? std::string(call.path) : std::string("a file");
  auto is = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (name == n) return true;
    return false;
  };
  if (is({"open", "openat", "openat2"})) {
    const long long flags = name == "open" ? call.args[1] : call.args[2];
    const bool writing = name != "openat2" && (flags & write_flags) != 0;
    return "open " + path + (name == "openat2" ? "" : writing ? " for writing" : " for reading") +
           " (" + name + ")";
  }
  if (is({"creat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
          "rmdir", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "chown",
          "lchown", "fchownat", "truncate", "mknod", "mknodat", "utimes", "utimensat"}))
    return "change " + path + " (" + name + ")";
  if (is({"execve", "execveat"})) return "run the program " + path + " (" + name + ")";
  if (is({"fork", "vfork", "clone", "clone3"}))
    return "start a process (" + name + "; std::system, popen and std::thread do)";
  if (is({"socket", "socketpair"})) {
    const long long domain = call.args[0];
    const bool network = domain == AF_INET || domain == AF_INET6;
    return std::string(network ? "open a network connection" : "open a socket") + " (" + name + ")";
  }
  if (is({"connect", "bind", "listen", "accept", "accept4"}))
    return "use the network (" + name + ")";
  if (is({"kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal"}))
    return "send signal " + std::to_string(name == "tgkill" ? call.args[2] : call.args[1]) +
           " to process " + std::to_string(call.args[0]) + " (" + name + ")";
  if (is({"rt_sigaction"})) return "take over the signal SIGSYS, with which the sandbox stops a kernel (" + name + ")";
  if (is({"stat", "lstat", "newfstatat", "statx", "access", "faccessat", "faccessat2",
          "readlink", "readlinkat", "chdir"}))
    return "look at " + path + " (" + name + ")";
  return "make the system call " + name;
}

}  // namespace tp::syscall_filter
