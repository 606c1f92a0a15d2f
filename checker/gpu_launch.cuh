// Runs one kernel instantiation on the GPU for a launch_request: one thread block per program.
// The GPU counterpart of checker/sim_launch.hpp, compiled by nvcc into each puzzle's GPU module
// (checker/gpu_module.cu).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/kernel_signature.hpp"
#include "checker/device_tensors.hpp"
#include "checker/launch.hpp"
#include "cuda/launch.cuh"
#include "cuda/tensor_maps.cuh"

namespace tp::gpu {

// The kernel's wrapper and its shared memory live with the GPU backend (cuda/launch.cuh), which
// users' own launches (tl::launch) share; the checker, tests and benchmarks name them here.
using tl::cuda::min_blocks_per_multiprocessor;
using tl::cuda::program;
using tl::cuda::shared_arena;
using tl::cuda::shared_arena_bytes;
using tl::cuda::shared_arena_of;

// Device memory that frees itself.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) { error_ = cudaMalloc(&data_, bytes); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : data_(o.data_), error_(o.error_) { o.data_ = nullptr; }
  ~device_buffer() {
    if (data_) cudaFree(data_);
  }
  void* get() const { return data_; }
  cudaError_t error() const { return error_; }

 private:
  void* data_ = nullptr;
  cudaError_t error_ = cudaSuccess;
};

inline std::string describe(cudaError_t error, const char* what) {
  return std::string(what) + " failed: " + cudaGetErrorName(error) + " (" +
         cudaGetErrorString(error) + ")";
}

namespace detail {
template <class Param>
Param kernel_argument(std::size_t index, const std::vector<device_buffer>& buffers,
                      const std::vector<int>& sizes) {
  if constexpr (tl::is_ptr_v<Param>) {
    using Elem = std::remove_const_t<typename Param::element_type>;
    return Param{static_cast<Elem*>(buffers.at(index).get())};
  } else {
    return static_cast<Param>(sizes.at(index - buffers.size()));
  }
}

// Empty when every tensor has the dtype of the kernel parameter it is passed to.
template <class... Params>
std::string dtype_mismatches(const std::vector<tensor>& tensors) {
  std::string problem;
  std::size_t index = 0;
  (
      [&] {
        if constexpr (tl::is_ptr_v<Params>) {
          if (problem.empty() && index < tensors.size())
            problem = device_tensors::dtype_mismatch(
                tensors[index], dtype_of<typename Params::element_type>());
        }
        ++index;
      }(),
      ...);
  return problem;
}
template <class Tuple>
struct mismatches_of;
template <class... Params>
struct mismatches_of<std::tuple<Params...>> {
  static std::string of(const std::vector<tensor>& tensors) { return dtype_mismatches<Params...>(tensors); }
};
}  // namespace detail

template <class Kernel>
std::string launch(const launch_request& request) {
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  auto& tensors = *request.tensors;
  if (auto problem = detail::mismatches_of<params>::of(tensors); !problem.empty()) return problem;
  std::vector<device_buffer> buffers;
  buffers.reserve(tensors.size());
  for (auto& t : tensors) {
    // In the tensor's dtype; outputs go in poisoned (NaN) so that an element the kernel never
    // writes cannot pass.
    const auto bytes = device_tensors::bytes_of(t);
    buffers.emplace_back(bytes.empty() ? sizeof(float) : bytes.size());
    if (buffers.back().error() != cudaSuccess)
      return describe(buffers.back().error(), ("cudaMalloc for " + t.name).c_str());
    if (auto e = cudaMemcpy(buffers.back().get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice))
      return describe(e, ("copying " + t.name + " to the GPU").c_str());
  }
  const dim3 grid(request.grid[0], request.grid[1], request.grid[2]);
  // Global memory for the tensor maps the kernel's descriptors build (cuda/tensor_maps.cuh).
  if (auto problem = tl::cuda::provide_tensor_maps(1LL * request.grid[0] * request.grid[1] * request.grid[2]);
      !problem.empty())
    return problem;
  std::string arena_error;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    constexpr auto function = program<Kernel, std::tuple_element_t<I, params>...>;
    const shared_arena& arena = shared_arena_of<function>();
    if (!arena.error.empty()) {
      arena_error = arena.error;
      return;
    }
    function<<<grid, 32 * Kernel::num_warps, arena.bytes>>>(
        Kernel{}, detail::kernel_argument<std::tuple_element_t<I, params>>(I, buffers,
                                                                           request.sizes)...);
  }(std::make_index_sequence<std::tuple_size_v<params>>{});
  if (!arena_error.empty()) return arena_error;
  if (auto e = cudaGetLastError()) return describe(e, "launching the kernel");
  if (auto e = cudaDeviceSynchronize()) return describe(e, "running the kernel");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].output) continue;
    std::vector<unsigned char> bytes(device_tensors::byte_count(tensors[i]));
    if (auto e = cudaMemcpy(bytes.data(), buffers[i].get(), bytes.size(), cudaMemcpyDeviceToHost))
      return describe(e, ("copying " + tensors[i].name + " back").c_str());
    device_tensors::read_back(tensors[i], bytes.data());
  }
  return {};
}

}  // namespace tp::gpu
