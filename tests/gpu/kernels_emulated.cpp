// The GPU tests' kernels on the host emulation of the CUDA backend (built with TL_EMULATED_GPU
// and TL_NUM_WARPS by tests/CMakeLists.txt, once per warp count).
#include "cuda/host_emulation.hpp"  // first: the CUDA names the backend's headers use
#include "tests/gpu/launch_emulated.hpp"

namespace tp::gpu_tests {
template <class Kernel>
std::string launch_under_test(const launch_request& request) {
  return tp::emulated::launch<Kernel>(request);
}
}  // namespace tp::gpu_tests

#include "tests/gpu/kernels.inc"
