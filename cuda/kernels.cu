// The puzzles' kernels built for the GPU, and the checker's GPU interface (checker/gpu.hpp).
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "checker/bindings/constant_add.hpp"
#include "checker/bindings/constant_add_block.hpp"
#include "checker/bindings/vector_add.hpp"
#include "checker/gpu.hpp"
#include "cuda/launch.cuh"

namespace tp::gpu {

std::string describe(cudaError_t error, const char* what) {
  return std::string(what) + " failed: " + cudaGetErrorName(error) + " (" +
         cudaGetErrorString(error) + ")";
}

namespace {

using key = std::tuple<std::string, impl, std::vector<int>>;

template <class Binding, class... Blocks>
void add_kernels(std::map<key, launcher>& table, block_list<Blocks...>) {
  (
      [&] {
        using stub = typename Binding::template stub<Blocks>;
        using solution = typename Binding::template solution<Blocks>;
        check_kernel_signature<stub, typename Binding::signature>();
        check_kernel_signature<solution, typename Binding::signature>();
        table[{Binding::id, impl::stub, Blocks::values()}] = &launch<stub>;
        table[{Binding::id, impl::solution, Blocks::values()}] = &launch<solution>;
      }(),
      ...);
}

// The puzzles whose kernels the GPU backend can run so far.
const std::map<key, launcher>& kernel_table() {
  static const std::map<key, launcher> table = [] {
    std::map<key, launcher> t;
    add_kernels<bindings::constant_add>(t, bindings::constant_add::configs{});
    add_kernels<bindings::constant_add_block>(t, bindings::constant_add_block::configs{});
    add_kernels<bindings::vector_add>(t, bindings::vector_add::configs{});
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
  const auto& table = kernel_table();
  const auto it = table.find({puzzle, which, blocks});
  return it == table.end() ? nullptr : it->second;
}

}  // namespace tp::gpu
