// The checker's view of the GPU. probe() is implemented by checker/gpu_probe.cpp when the CUDA
// path is built and by checker/gpu_absent.cpp otherwise; the kernels themselves come in GPU
// modules (checker/gpu_module.cu), loaded like the simulator's (checker/modules.hpp). The checker
// never needs nvcc.
#pragma once

#include <string>

#include "checker/launch.hpp"

namespace tp::gpu {

struct device_status {
  bool available = false;
  std::string description;  // the GPU's name, or why there is none and what to do
  std::string reason = {};  // why there is none, without advice about --gpu (for `bench`)
};

// Whether this build has the CUDA backend (TILEPUZZLES_CUDA).
bool built_with_cuda();

// Looks for a usable GPU.
device_status probe();

// Starts the CUDA runtime on the first GPU now (its context: device files opened, its threads
// started), as the sandboxed runner does before its system-call filter, which would stop that.
// Returns an empty string, or what went wrong.
std::string initialize();

// Runs a kernel on the GPU: inputs are copied in, outputs (pre-filled with NaN) copied back.
// Returns an empty string, or what went wrong. What a GPU module's kernels point to.
using launcher = std::string (*)(const launch_request&);

}  // namespace tp::gpu
