// One puzzle's kernel, the learner's stub or the reference solution, built for the simulator as a
// module of its own (a shared library the checker loads with dlopen). CMake compiles this file
// once per puzzle and implementation (cmake/puzzle_modules.cmake) with:
//   TILEPUZZLES_BINDING         the binding struct, e.g. vector_add (checker/bindings/vector_add.hpp)
//   TILEPUZZLES_BINDING_HEADER  "checker/bindings/vector_add.hpp"
//   TILEPUZZLES_KERNEL_FILE     the absolute path of the stub or solution
//   TILEPUZZLES_IMPL_STUB or TILEPUZZLES_IMPL_SOLUTION
#include "checker/module_abi.hpp"
#include "checker/sim_launch.hpp"
#include TILEPUZZLES_BINDING_HEADER

#if TILEPUZZLES_IMPL_STUB
// A stub cannot use the reference solutions. Every solution lives in namespace `solutions`, so
// from here on that name is an error: including anything under solutions/ fails to compile.
#pragma GCC poison solutions
#endif

#include TILEPUZZLES_KERNEL_FILE

namespace {

using binding = tp::bindings::TILEPUZZLES_BINDING;

#if TILEPUZZLES_IMPL_STUB
template <class Blocks>
using kernel_for = typename binding::template stub<Blocks>;
constexpr const char* impl_name = "stub";
#else
template <class Blocks>
using kernel_for = typename binding::template solution<Blocks>;
constexpr const char* impl_name = "solution";
#endif

template <class... Blocks>
tp::module_info make_module(tp::block_list<Blocks...>) {
  (tp::check_kernel_signature<kernel_for<Blocks>, tp::signature_of_t<binding, Blocks>>(), ...);
  static const tp::module_kernel kernels[] = {tp::make_module_kernel<Blocks>(
      reinterpret_cast<void (*)()>(&tp::sim_launch<kernel_for<Blocks>>))...};
  tp::module_info info;
  info.abi_version = tp::module_abi_version;
  info.puzzle_id = binding::id;
  info.impl = impl_name;
  info.backend = "simulator";
  info.kernel_count = static_cast<int>(sizeof...(Blocks));
  info.kernels = kernels;
  return info;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const tp::module_info* tilepuzzles_module() {
  static const tp::module_info info = make_module(binding::configs{});
  return &info;
}
