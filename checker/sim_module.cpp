// One puzzle's kernel, the learner's stub or the reference solution, built for the simulator as a
// module of its own (a shared library the checker loads with dlopen). CMake compiles this file
// once per puzzle and implementation (cmake/puzzle_modules.cmake) with:
//   TILEPUZZLES_BINDING         the binding struct, e.g. vector_add (checker/specs/vector_add.hpp)
//   TILEPUZZLES_BINDING_HEADER  "checker/specs/vector_add.hpp"
//   TILEPUZZLES_KERNEL_FILE     the absolute path of the stub or solution
//   TILEPUZZLES_IMPL_STUB or TILEPUZZLES_IMPL_SOLUTION
#include "checker/sim_launch.hpp"

#include "checker/module_source.inc"

namespace tp::module_source {

template <class... Blocks>
module_info make_module(block_list<Blocks...> configs) {
  check_signatures(configs);
  static const module_kernel kernels[] = {make_module_kernel<Blocks>(
      reinterpret_cast<void (*)()>(&tp::sim_launch<kernel_for<Blocks>>))...};
  return describe(kernels, static_cast<int>(sizeof...(Blocks)), "simulator");
}

}  // namespace tp::module_source

extern "C" __attribute__((visibility("default"))) const tp::module_info* tilepuzzles_module() {
  static const tp::module_info info = tp::module_source::make_module(tp::module_source::binding::configs{});
  return &info;
}
