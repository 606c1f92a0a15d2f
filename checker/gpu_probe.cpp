// Looking for a GPU, in a build with the CUDA backend. Host code only: g++ compiles it against the
// CUDA runtime, so the tilepuzzles program itself never needs nvcc (the kernels come in GPU
// modules, checker/gpu_module.cu).
#include <cuda_runtime.h>

#include <string>

#include "checker/gpu.hpp"

namespace tp::gpu {

namespace {
std::string describe(cudaError_t error, const char* what) {
  return std::string(what) + " failed: " + cudaGetErrorName(error) + " (" +
         cudaGetErrorString(error) + ")";
}
}  // namespace

bool built_with_cuda() { return true; }

device_status probe() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    const std::string reason = "no usable NVIDIA GPU: " + describe(error, "cudaGetDeviceCount");
    return {false, reason + ". --gpu needs an NVIDIA GPU with its driver; without --gpu every "
                            "puzzle runs in the simulator.", reason};
  }
  if (count == 0)
    return {false, "no NVIDIA GPU found. --gpu needs one; without --gpu every puzzle runs in the "
                   "simulator.", "no NVIDIA GPU found"};
  cudaDeviceProp props{};
  if (auto e = cudaGetDeviceProperties(&props, 0); e != cudaSuccess)
    return {false, describe(e, "cudaGetDeviceProperties"), describe(e, "cudaGetDeviceProperties")};
  return {true, std::string(props.name) + " (compute capability " + std::to_string(props.major) +
                    "." + std::to_string(props.minor) + ")"};
}

std::string initialize() {
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess)
    return describe(e, "starting the CUDA runtime (cudaFree(0))");
  return {};
}

}  // namespace tp::gpu
