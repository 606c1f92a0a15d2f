// The GPU tests' kernels on the GPU (built by nvcc with TL_NUM_WARPS by tests/CMakeLists.txt,
// once per warp count).
#include "checker/gpu_launch.cuh"

namespace tp::gpu_tests {
template <class Kernel>
std::string launch_under_test(const launch_request& request) {
  return tp::gpu::launch<Kernel>(request);
}
}  // namespace tp::gpu_tests

#include "tests/gpu/kernels.inc"
