// The sandbox of a learner's stub: its module's compile and its run happen inside bubblewrap
// (Debian's `bubblewrap`, unprivileged user namespaces), which shows them the system's files and
// the project's headers read-only (never solutions/ nor the build's modules), the student's
// directory read-only and a private scratch directory (a tmpfs at /tmp), with no network, a PID
// namespace of their own (nothing they start outlives them, nothing outside can be signalled)
// and limits on memory, CPU time, file size and process count. The run adds a system-call
// filter (checker/syscall_filter.*) so that what a stub attempts is stopped and reported.
// Reference solutions are the project's own code and need none of this.
//
// docs/ARCHITECTURE.md ("The sandbox") describes the whole route.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tp::sandbox {

// The address space a sandboxed process may use, unless --memory-limit says otherwise. A check
// of any puzzle's solution uses well under 1 GiB (docs/ARCHITECTURE.md has the figures) and the
// compile of the largest module about 1 GiB.
inline constexpr long default_memory_mb = 4096;

struct limits {
  long memory_mb = default_memory_mb;  // RLIMIT_AS of each process
  long cpu_seconds = 0;                // RLIMIT_CPU; 0: none
  long file_mb = 1024;                 // RLIMIT_FSIZE: the largest file a process may write
  long processes = 64;                 // RLIMIT_NPROC, or pids.max for root (process_group)
  long scratch_mb = 1024;              // the size of the private /tmp
  // memory_mb bounds RLIMIT_DATA instead of RLIMIT_AS: for a process that runs kernels on the
  // GPU, whose CUDA runtime reserves address space many times the machine's memory (the GPU's
  // unified address space) and could not start under RLIMIT_AS. RLIMIT_DATA still counts every
  // private writable mapping, so what a stub allocates on the host stays bounded.
  bool data_only = false;
};

// Whether a sandbox can be made on this machine: nothing when it can, else why not (bubblewrap
// missing, user namespaces off, not Linux). Probed once per process, by making one.
const std::optional<std::string>& unavailable();

// What a sandbox shows besides the system's files and the project's headers.
struct view {
  std::vector<std::string> read_only;  // files or directories, at their own paths
  std::vector<std::string> writable;   // directories, at their own paths
  std::string chdir = "/tmp";          // where the command starts (created if missing)
  // The GPU too: its device files (/dev/nvidia*), /sys read-only (the driver reads the PCI
  // topology there) and the environment that picks or finds the GPU (CUDA_VISIBLE_DEVICES,
  // LD_LIBRARY_PATH where the driver's library lives).
  bool gpu = false;
};

// The bwrap command line that runs `command` in a sandbox with `what` in view.
std::vector<std::string> command_line(const view& what, const limits& limit,
                                      const std::vector<std::string>& command);

// Sets the limits on this process (for the forked child about to exec bwrap: bwrap and everything
// in the sandbox inherit them).
void apply_limits(const limits& limit);

// The bound on a sandbox's processes where RLIMIT_NPROC does not hold. Linux exempts a process
// whose real user is root from RLIMIT_NPROC (in any user namespace: bwrap's sandbox of a
// checker run as root still belongs to root outside). There a sandbox's processes and threads
// are put in a cgroup of their own with `pids.max` (the pids controller, cgroup v1 or v2), where
// this process may make one. Empty (join and release do nothing) where it need not (not root)
// or cannot (no writable pids cgroup: a container's read-only /sys/fs/cgroup); `process_limit`
// says which.
class process_group {
 public:
  process_group() = default;
  process_group(process_group&& other) noexcept { *this = std::move(other); }
  process_group& operator=(process_group&& other) noexcept;
  process_group(const process_group&) = delete;
  process_group& operator=(const process_group&) = delete;
  ~process_group() { release(); }

  static process_group make(const limits& limit);
  // In the child about to exec bwrap: moves it (and so the whole sandbox) into the group.
  // Only write(2): safe between fork and exec.
  void join() const;
  // Once the sandbox has ended: removes the group.
  void release();
  bool active() const { return procs_fd_ >= 0; }

 private:
  std::string path_;
  int procs_fd_ = -1;
};

// How a sandbox's process count is bounded here: "RLIMIT_NPROC", "a pids cgroup", or nothing
// when neither holds (root without a writable pids cgroup).
std::optional<std::string> process_limit();

// The environment a stub module's compile is sandboxed through: cmake/compile-logged.sh, run by
// the build the checker starts, finds the program and the limit in these variables and runs the
// compiler through `tilepuzzles __sandbox-compile`. Empty when the compile runs unsandboxed.
std::vector<std::string> compile_environment(bool sandboxed, const limits& limit);

// The executable that runs sandboxed compiles and checks: this build's `tilepuzzles`.
std::string program();

// `tilepuzzles __sandbox-compile --kernel FILE [--memory-mb N] -- COMMAND...`: runs one command of a
// stub module's build (the compiler, or the GPU module's warps probe) in a sandbox that shows the
// kernel's directory and the headers read-only and the directories of the command's -o and -MF
// outputs writable. Its exit status is the command's.
int compile_main(int argc, char** argv);

// `tilepuzzles __limits --memory-mb N --cpu-seconds N --file-mb N --processes N -- COMMAND...`:
// sets the limits on itself and runs the command; the first command of every sandbox.
int limits_main(int argc, char** argv);

// How a sandboxed process ended, from bwrap's exit status (bwrap exits with 128 + N when its
// command was killed by signal N).
struct ending {
  bool signalled = false;
  int code = 0;  // the exit status, or the signal
};
ending ending_of(int wait_status);

}  // namespace tp::sandbox
