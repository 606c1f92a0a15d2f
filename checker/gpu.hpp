// The checker's view of the GPU backend. Implemented by cuda/ when the CUDA path is built and by
// checker/gpu_absent.cpp otherwise, so the checker never needs nvcc.
#pragma once

#include <string>
#include <vector>

#include "checker/launch.hpp"

namespace tp::gpu {

struct device_status {
  bool available = false;
  std::string description;  // the GPU's name, or why there is none and what to do
};

// Looks for a usable GPU once; cheap to call again.
device_status probe();

// Runs a kernel on the GPU: inputs are copied in, outputs (pre-filled with NaN) copied back.
// Returns an empty string, or what went wrong.
using launcher = std::string (*)(const launch_request&);

// The GPU build of a puzzle's kernel with these block sizes, or null if it is not on the GPU yet.
launcher find(const std::string& puzzle, impl which, const std::vector<int>& blocks);

// Why a puzzle is not built for the GPU ("it needs tl::dot, ..."), or empty if it is or no
// reason is known.
std::string not_built_reason(const std::string& puzzle);

}  // namespace tp::gpu
