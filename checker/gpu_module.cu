// One puzzle's kernel, the learner's stub or the reference solution, built by nvcc for the GPU as
// a module of its own (loaded by the checker with dlopen only for `check --gpu`). The GPU
// counterpart of checker/sim_module.cpp, compiled with the same definitions.
//
// tl's GPU layouts depend on the warps per program, so tl is built for one count per translation
// unit (TL_NUM_WARPS, tile/config.hpp), and a kernel may choose its num_warps per block size. The
// module's compiler launcher (cmake/compile-logged.sh) finds the counts the configurations use and
// compiles this file once per count (TILEPUZZLES_WARP_COUNTS, to every unit: the counts' sum, one
// bit per count): each
// unit fills in the configurations of its count, and the entry unit (TILEPUZZLES_MODULE_ENTRY) the
// module's entry point, which gathers them.
#include <utility>

#include "checker/gpu_launch.cuh"
#include "checker/module_source.inc"

#ifndef TILEPUZZLES_WARP_COUNTS
#define TILEPUZZLES_WARP_COUNTS TL_NUM_WARPS
#endif
#ifndef TILEPUZZLES_MODULE_ENTRY
#define TILEPUZZLES_MODULE_ENTRY 1
#endif

namespace tp::gpu_module {

using module_source::binding;
using module_source::kernel_for;

// Fills in kernels[i] for each configuration i whose num_warps is Warps; defined by the unit built
// for that count.
template <int Warps>
void add_kernels(module_kernel* kernels);
template <>
void add_kernels<1>(module_kernel*);
template <>
void add_kernels<2>(module_kernel*);
template <>
void add_kernels<4>(module_kernel*);
template <>
void add_kernels<8>(module_kernel*);
template <>
void add_kernels<16>(module_kernel*);
template <>
void add_kernels<32>(module_kernel*);

template <class... Blocks>
void add_kernels_of_this_unit(module_kernel* kernels, block_list<Blocks...>) {
  int i = 0;
  (
      [&] {
        using kernel = kernel_for<Blocks>;
        if constexpr (kernel::num_warps == TL_NUM_WARPS)
          kernels[i] = make_module_kernel<Blocks>(
              reinterpret_cast<void (*)()>(&tp::gpu::launch<kernel>));
        ++i;
      }(),
      ...);
}

template <>
void add_kernels<TL_NUM_WARPS>(module_kernel* kernels) {
  add_kernels_of_this_unit(kernels, binding::configs{});
}

#if TILEPUZZLES_MODULE_ENTRY
template <class Kernel>
constexpr void check_warps_are_built() {
  // A count tl cannot be built for has its own message (checker/kernel_signature.hpp).
  constexpr int warps = Kernel::num_warps;
  constexpr bool valid = warps >= 1 && warps <= 32 && (warps & (warps - 1)) == 0;
  static_assert(!valid || (TILEPUZZLES_WARP_COUNTS & warps) != 0,
                "tl (GPU backend): this kernel's num_warps is not one of the warp counts its GPU "
                "module was built for (cmake/compile-logged.sh reads them by compiling the kernel "
                "file with the host compiler): num_warps must be a constant that depends only on "
                "the kernel's template parameters, the same for the host compiler and nvcc");
}

template <class... Blocks>
module_info make_module(block_list<Blocks...>) {
  module_source::check_signatures(block_list<Blocks...>{});
  (check_warps_are_built<kernel_for<Blocks>>(), ...);
  static module_kernel kernels[sizeof...(Blocks)];
  [&]<int... Warps>(std::integer_sequence<int, Warps...>) {
    (
        [&] {
          if constexpr ((TILEPUZZLES_WARP_COUNTS & Warps) != 0) add_kernels<Warps>(kernels);
        }(),
        ...);
  }(std::integer_sequence<int, 1, 2, 4, 8, 16, 32>{});
  return module_source::describe(kernels, static_cast<int>(sizeof...(Blocks)), "gpu");
}
#endif

}  // namespace tp::gpu_module

#if TILEPUZZLES_MODULE_ENTRY
extern "C" __attribute__((visibility("default"))) const tp::module_info* tilepuzzles_module() {
  static const tp::module_info info = tp::gpu_module::make_module(tp::gpu_module::binding::configs{});
  return &info;
}
#endif
