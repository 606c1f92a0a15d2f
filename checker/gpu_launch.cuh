// Runs one kernel instantiation on the GPU for a launch_request: one thread block per program.
// The GPU counterpart of checker/sim_launch.hpp, compiled by nvcc into each puzzle's GPU module
// (checker/gpu_module.cu).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/binding.hpp"
#include "checker/launch.hpp"

namespace tp::gpu {

template <class Kernel, class... Args>
__global__ void __launch_bounds__(32 * Kernel::num_warps) program(Kernel kernel, Args... args) {
  // The GPU backend's layouts depend on the warps, so tl is built for one count per translation
  // unit (TL_NUM_WARPS); a puzzle's GPU module reads it from the kernel file
  // (cmake/compile-logged.sh).
  static_assert(Kernel::num_warps == TL_NUM_WARPS,
                "tl (GPU backend): this kernel's num_warps is not the warp count its GPU module "
                "was built for (read from the kernel file's line 'static constexpr int num_warps "
                "= N;', and 4 where the file has no such line or lines with different values): "
                "write num_warps as one number, the same in every kernel of the file");
  kernel(args...);
}

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
  float* get() const { return static_cast<float*>(data_); }
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
    static_assert(std::is_same_v<std::remove_const_t<typename Param::element_type>, float>,
                  "the checker passes float32 tensors: use tl::ptr<float> or tl::ptr<const float>");
    return Param{buffers.at(index).get()};
  } else {
    return static_cast<Param>(sizes.at(index - buffers.size()));
  }
}
}  // namespace detail

template <class Kernel>
std::string launch(const launch_request& request) {
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  auto& tensors = *request.tensors;
  std::vector<device_buffer> buffers;
  buffers.reserve(tensors.size());
  for (auto& t : tensors) {
    const std::size_t bytes = t.values.size() * sizeof(float);
    buffers.emplace_back(bytes == 0 ? sizeof(float) : bytes);
    if (buffers.back().error() != cudaSuccess)
      return describe(buffers.back().error(), ("cudaMalloc for " + t.name).c_str());
    // Outputs go in as NaN so that an element the kernel never writes cannot pass.
    std::vector<float> poisoned;
    const float* source = t.values.data();
    if (t.output) {
      poisoned.assign(t.values.size(), std::numeric_limits<float>::quiet_NaN());
      source = poisoned.data();
    }
    if (auto e = cudaMemcpy(buffers.back().get(), source, bytes, cudaMemcpyHostToDevice))
      return describe(e, ("copying " + t.name + " to the GPU").c_str());
  }
  const dim3 grid(request.grid[0], request.grid[1], request.grid[2]);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    program<Kernel, std::tuple_element_t<I, params>...><<<grid, 32 * Kernel::num_warps>>>(
        Kernel{}, detail::kernel_argument<std::tuple_element_t<I, params>>(I, buffers,
                                                                           request.sizes)...);
  }(std::make_index_sequence<std::tuple_size_v<params>>{});
  if (auto e = cudaGetLastError()) return describe(e, "launching the kernel");
  if (auto e = cudaDeviceSynchronize()) return describe(e, "running the kernel");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].output) continue;
    if (auto e = cudaMemcpy(tensors[i].values.data(), buffers[i].get(),
                            tensors[i].values.size() * sizeof(float), cudaMemcpyDeviceToHost))
      return describe(e, ("copying " + tensors[i].name + " back").c_str());
  }
  return {};
}

}  // namespace tp::gpu
