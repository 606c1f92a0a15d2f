// Launching a tl kernel on the GPU, one thread block of 32 * num_warps threads per program: the
// kernel's __global__ wrapper, the dynamic shared memory of its arena, and tl::launch, with which
// a user's own .cu file launches a kernel on a stream (docs/tl.md, "Using `tl` in your own
// code"). The checker's launcher (checker/gpu_launch.cuh), the GPU tests and the benchmarks
// launch through the same wrapper and arena.
//
//   #define TL_NUM_WARPS 4          // the num_warps of the kernels this file launches
//   #include "cuda/launch.cuh"
//   tl::launch<Scale<64>>(tl::grid{tl::cdiv(n, 64)}, stream, x_device, z_device, n);
#pragma once

#if !defined(__CUDACC__)
#error "cuda/launch.cuh launches kernels on the GPU: include it in a .cu file that nvcc compiles; \
g++ runs them in the simulator with simulator/simulate.hpp"
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda/shared_arena.cuh"
#include "cuda/tensor_maps.cuh"
#include "tile/launch.hpp"
#include "tile/tl.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// The blocks of a kernel that must fit on one multiprocessor at once: its optional
// `min_blocks_per_multiprocessor`, the second bound of __launch_bounds__. ptxas then keeps the
// kernel within 64K / (that many blocks' threads) registers per thread, spilling where it must
// (a 256-thread kernel asking for 2 gets at most 128). 0 where the kernel declares none or 0: no
// second bound at all, since a bound of 1 is not the same to ptxas (measured: the 8-warp 128 x
// 128 x 32 matmul took 138 registers with it, 126 without, and lost its second block per
// multiprocessor).
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
  // checker/gpu_module.cu); the GPU tests and benchmarks compile their kernels once per count,
  // and a user's .cu file defines TL_NUM_WARPS before it includes tl (docs/tl.md).
  static_assert(Kernel::num_warps == TL_NUM_WARPS,
                "tl (GPU backend): this kernel's num_warps is not the warp count this translation "
                "unit's tl was built for (TL_NUM_WARPS): launch it from a unit built for its "
                "count");
  kernel(args...);
  release_tensor_maps();
}

// The dynamic shared memory a launch of `function` needs: its tl arena, 128 times the markers
// ptxas laid out in its static shared memory (cuda/shared_arena.cuh). Where the two pass 48 KiB
// the kernel's limit is raised, once per process; where the GPU cannot give that much, `error`
// says so and what to do.
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
  arena.bytes = attributes.sharedSizeBytes * arena_scale;
  // Static and dynamic together: past 48 KiB a launch needs the kernel's limit raised.
  if (arena.bytes + attributes.sharedSizeBytes <= 48 * 1024) return arena;
  int device = 0, limit = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (arena.bytes + attributes.sharedSizeBytes > static_cast<std::size_t>(limit)) {
    arena.error = shared_arena_too_large(arena.bytes + attributes.sharedSizeBytes,
                                         static_cast<std::size_t>(limit));
  } else if (auto e = cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(arena.bytes))) {
    arena.error = std::string("raising the kernel's shared memory limit failed: ") +
                  cudaGetErrorString(e);
  }
  return arena;
}
template <auto Function>
const shared_arena& shared_arena_of() {
  static const shared_arena arena = measure_shared_arena(Function);
  return arena;
}

// shared_arena_of's bytes, for a launcher that reports a failure by exception (the benchmarks,
// tl::launch).
template <auto Function>
std::size_t shared_arena_bytes() {
  const shared_arena& arena = shared_arena_of<Function>();
  if (!arena.error.empty()) throw std::runtime_error(arena.error);
  return arena.bytes;
}

}  // namespace cuda

// What tl::launch throws: a launch that could not start, with what to do where there is
// something to do (a kernel whose shared memory the GPU cannot give).
struct launch_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace launch_detail {
// The kernel's argument for parameter `index`: a device pointer as tl::ptr, or the scalar.
template <class Param, class Arg>
Param device_argument(const Arg& arg, std::size_t index) {
  if constexpr (is_ptr_v<Param>) {
    using Elem = typename Param::element_type;
    if constexpr (std::is_same_v<std::remove_cvref_t<Arg>, Param>) {
      return arg;
    } else {
      static_assert(std::is_convertible_v<Arg, Elem*>,
                    "tl::launch: a tl::ptr<T> parameter takes a device pointer to T (const T* "
                    "for a tl::ptr<const T>): a pointer of another element type, or a const "
                    "pointer for a parameter the kernel writes through, does not fit");
      return Param{static_cast<Elem*>(arg)};
    }
  } else {
    return scalar_argument<Param>(arg, index, "tl::launch");
  }
}
}  // namespace launch_detail

// Launches `Kernel` on `stream` over `grid`, one thread block per program, one argument per
// parameter of its call operator: a device pointer for each tl::ptr, a number for each scalar.
// It returns once the launch is queued, as <<<...>>> does: what the kernel does wrong on the
// device surfaces at the stream's next synchronization. Throws tl::launch_error where the launch
// could not start. The kernel's num_warps must be this translation unit's TL_NUM_WARPS.
//
// Kernels that make tensor descriptors build their tensor maps in memory of this translation
// unit (cuda/tensor_maps.cuh): two such launches of one unit must not run at once on two
// streams; launches on one stream, or of kernels without descriptors, may.
template <class Kernel, class... Args>
void launch(grid g, cudaStream_t stream, const Args&... args) {
  static_assert(check_kernel_form<Kernel>());
  using params = kernel_params_t<Kernel>;
  static_assert(sizeof...(Args) == std::tuple_size_v<params>,
                "tl::launch: pass one argument per parameter of the kernel's call operator");
  check_grid(g, "tl::launch");
  if (auto problem = cuda::provide_tensor_maps(g.programs()); !problem.empty())
    throw launch_error("tl::launch: " + problem);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    constexpr auto function = cuda::program<Kernel, std::tuple_element_t<I, params>...>;
    const cuda::shared_arena& arena = cuda::shared_arena_of<function>();
    if (!arena.error.empty()) throw launch_error("tl::launch: " + arena.error);
    function<<<dim3(g.x, g.y, g.z), 32 * Kernel::num_warps, arena.bytes, stream>>>(
        Kernel{},
        launch_detail::device_argument<std::tuple_element_t<I, params>>(args, I)...);
  }(std::index_sequence_for<Args...>{});
  if (auto e = cudaGetLastError())
    throw launch_error(std::string("tl::launch: launching the kernel failed: ") +
                       cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace TL_ABI
}  // namespace tl
