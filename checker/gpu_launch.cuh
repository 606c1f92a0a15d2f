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

#include "checker/binding.hpp"
#include "checker/device_tensors.hpp"
#include "checker/launch.hpp"
#include "cuda/shared_arena.cuh"
#include "cuda/tensor_maps.cuh"

namespace tp::gpu {

// The blocks of a kernel that must fit on one multiprocessor at once: its optional
// `min_blocks_per_multiprocessor`, the second bound of __launch_bounds__. ptxas then keeps the
// kernel within 64K / (that many blocks' threads) registers per thread, spilling where it must (a
// 256-thread kernel asking for 2 gets at most 128). 0 where the kernel declares none or 0: no second
// bound at all, since a bound of 1 is not the same to ptxas (measured: the 8-warp 128 x 128 x 32
// matmul took 138 registers with it, 126 without, and lost its second block per multiprocessor).
template <class Kernel>
inline constexpr int min_blocks_per_multiprocessor = [] {
  if constexpr (requires { Kernel::min_blocks_per_multiprocessor; }) {
    static_assert(Kernel::min_blocks_per_multiprocessor >= 0,
                  "tl (GPU backend): min_blocks_per_multiprocessor must be at least 1 (it asks the "
                  "GPU compiler to fit that many of the kernel's programs on one multiprocessor), "
                  "or 0 for no such bound");
    return static_cast<int>(Kernel::min_blocks_per_multiprocessor);
  } else {
    return 0;
  }
}();

template <class Kernel, class... Args>
__global__ void __launch_bounds__(32 * Kernel::num_warps, min_blocks_per_multiprocessor<Kernel>)
    program(Kernel kernel, Args... args) {
  // The GPU backend's layouts depend on the warps, so tl is built for one count per translation
  // unit (TL_NUM_WARPS), and a kernel runs only from a unit built for its count. A puzzle's GPU
  // module is built once per count its configurations use (cmake/compile-logged.sh,
  // checker/gpu_module.cu); the GPU tests and benchmarks compile their kernels once per count.
  static_assert(Kernel::num_warps == TL_NUM_WARPS,
                "tl (GPU backend): this kernel's num_warps is not the warp count this translation "
                "unit's tl was built for (TL_NUM_WARPS): launch it from a unit built for its count");
  kernel(args...);
  tl::cuda::release_tensor_maps();
}

// The dynamic shared memory a launch of `function` needs: its tl arena, 128 times the markers
// ptxas laid out in its static shared memory (cuda/shared_arena.cuh). Where the two pass 48 KiB
// the kernel's limit is raised, once per process; where the GPU cannot give that much, `error` says so
// and what to do.
struct shared_arena {
  std::size_t bytes = 0;
  std::string error;
};
template <class... Params>
shared_arena measure_shared_arena(void (*function)(Params...)) {
  shared_arena arena;
  cudaFuncAttributes attributes{};
  if (auto e = cudaFuncGetAttributes(&attributes, function)) {
    arena.error = std::string("reading the kernel's attributes failed: ") + cudaGetErrorString(e);
    return arena;
  }
  arena.bytes = attributes.sharedSizeBytes * tl::cuda::arena_scale;
  // Static and dynamic together: past 48 KiB a launch needs the kernel's limit raised.
  if (arena.bytes + attributes.sharedSizeBytes <= 48 * 1024) return arena;
  int device = 0, limit = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (arena.bytes + attributes.sharedSizeBytes > static_cast<std::size_t>(limit)) {
    arena.error = tl::cuda::shared_arena_too_large(arena.bytes + attributes.sharedSizeBytes,
                                                    static_cast<std::size_t>(limit));
  } else if (auto e = cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(arena.bytes))) {
    arena.error = std::string("raising the kernel's shared memory limit failed: ") + cudaGetErrorString(e);
  }
  return arena;
}
template <auto Function>
const shared_arena& shared_arena_of() {
  static const shared_arena arena = measure_shared_arena(Function);
  return arena;
}

// shared_arena_of's bytes, for a launcher that reports a failure by exception (the benchmarks).
template <auto Function>
std::size_t shared_arena_bytes() {
  const shared_arena& arena = shared_arena_of<Function>();
  if (!arena.error.empty()) throw std::runtime_error(arena.error);
  return arena.bytes;
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
