// The checker's GPU interface (checker/gpu.hpp): finding the GPU and the kernels built for it.
#include <cuda_runtime.h>

#include <string>

#include "checker/gpu.hpp"
#include "cuda/gpu_puzzles.hpp"
#include "cuda/kernel_table.hpp"

namespace tp::gpu {

std::string describe(cudaError_t error, const char* what) {
  return std::string(what) + " failed: " + cudaGetErrorName(error) + " (" +
         cudaGetErrorString(error) + ")";
}

namespace {

const kernel_table& kernels() {
  static const kernel_table table = [] {
    kernel_table t;
    add_kernels<1>(t);
    add_kernels<2>(t);
    add_kernels<4>(t);
    add_kernels<8>(t);
    add_kernels<16>(t);
    add_kernels<32>(t);
    t.not_built = puzzles_not_on_the_gpu();
    return t;
  }();
  return table;
}

}  // namespace

device_status probe() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess)
    return {false, "no usable NVIDIA GPU: " + describe(error, "cudaGetDeviceCount") +
                       ". --gpu needs an NVIDIA GPU with its driver; without --gpu every puzzle "
                       "runs in the simulator."};
  if (count == 0)
    return {false, "no NVIDIA GPU found. --gpu needs one; without --gpu every puzzle runs in the "
                   "simulator."};
  cudaDeviceProp props{};
  if (auto e = cudaGetDeviceProperties(&props, 0); e != cudaSuccess)
    return {false, describe(e, "cudaGetDeviceProperties")};
  return {true, std::string(props.name) + " (compute capability " + std::to_string(props.major) +
                    "." + std::to_string(props.minor) + ")"};
}

launcher find(const std::string& puzzle, impl which, const std::vector<int>& blocks) {
  const auto& table = kernels().launchers;
  const auto it = table.find({puzzle, which, blocks});
  return it == table.end() ? nullptr : it->second;
}

std::string not_built_reason(const std::string& puzzle) {
  const auto& reasons = kernels().not_built;
  const auto it = reasons.find(puzzle);
  return it == reasons.end() ? std::string() : it->second;
}

}  // namespace tp::gpu
