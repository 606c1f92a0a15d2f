// The system calls a stub's run may make (seccomp, through libseccomp), in the sandboxed runner:
// a call it may not make stops the run, and what it tried is reported (the `sandbox` kind).
// bubblewrap already keeps the stub from harming anything outside its sandbox; the filter is what
// turns an attempt into a verdict ("the kernel tried to open .../solutions/matmul.hpp") instead
// of a quiet failure that a kernel could ignore and still pass.
//
// Two stages. While the module loads (its static constructors run then), everything but starting
// processes, running programs, the network, signals to other processes and writing files; once
// it is loaded and the kernel runs, only what computing needs: memory, the runner's own file
// descriptors, clocks, exit.
//
// A run with the GPU (check --gpu) keeps the loading stage to its end, with threads allowed: the
// CUDA runtime, started before the filter (gpu::initialize), talks to the driver with ioctl on
// its device files and runs threads of its own, which the kernel stage forbids. What it adds to
// the loading stage is `clone` with CLONE_THREAD (a thread of this process, never a process) and
// `clone3` answered ENOSYS, so that glibc falls back to `clone`, whose flags a filter can read.
#pragma once

#include <string>

namespace tp::syscall_filter {

// What the filter stopped, written by the runner's SIGSYS handler into memory the supervising
// process reads (a shared page): plain data, no pointers.
struct stopped_call {
  int set = 0;        // 1 once a call was stopped
  int number = -1;    // the system call's number
  unsigned arch = 0;  // its AUDIT_ARCH_* value
  long long args[6] = {};
  char path[256] = {};  // the path argument of a file or exec call, as far as it could be read
};

// Whether this build has the filter (libseccomp was found): without it a stub's attempts are
// still contained by bubblewrap, but not reported.
bool available();

// Installs the SIGSYS handler that fills `record` and ends the process.
void report_into(stopped_call* record);

// The stages; each returns an error message, or "" when installed.
std::string install_loading_stage(bool threads = false);
std::string install_kernel_stage();

// What a stopped call tried, for a report: "open /x/solutions/matmul.hpp for reading (openat)".
std::string describe(const stopped_call& call);

// The system call's name, "openat" (or "system call N").
std::string name_of(int number, unsigned arch);

}  // namespace tp::syscall_filter
