// The puzzles' kernels built for the GPU with TL_NUM_WARPS warps per program: cuda/CMakeLists.txt
// compiles this file once per warp count, and each build registers the kernels whose num_warps
// is its own.
#include "cuda/gpu_puzzles.hpp"
#include "cuda/kernel_table.hpp"
#include "cuda/launch.cuh"

namespace tp::gpu {

namespace {

template <class Binding, class... Blocks>
void add_binding(kernel_table& table, block_list<Blocks...>) {
  (
      [&] {
        using stub = typename Binding::template stub<Blocks>;
        using solution = typename Binding::template solution<Blocks>;
        if constexpr (stub::num_warps == TL_NUM_WARPS) {
          check_kernel_signature<stub, typename Binding::signature>();
          table.launchers[{Binding::id, impl::stub, Blocks::values()}] = &launch<stub>;
        }
        if constexpr (solution::num_warps == TL_NUM_WARPS) {
          check_kernel_signature<solution, typename Binding::signature>();
          table.launchers[{Binding::id, impl::solution, Blocks::values()}] = &launch<solution>;
        }
      }(),
      ...);
}

}  // namespace

template <>
void add_kernels<TL_NUM_WARPS>(kernel_table& table) {
  for_each_gpu_puzzle([&]<class Binding>() {
    add_binding<Binding>(table, typename Binding::configs{});
  });
}

}  // namespace tp::gpu
