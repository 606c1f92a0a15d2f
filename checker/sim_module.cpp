// One puzzle's kernel, the learner's stub or the reference solution, built for the simulator as a
// module of its own (a shared library the checker loads with dlopen). CMake compiles this file
// once per puzzle and implementation (cmake/puzzle_modules.cmake) with:
//   TILEPUZZLES_BINDING         the binding struct, e.g. vector_add (checker/bindings/vector_add.hpp)
//   TILEPUZZLES_BINDING_HEADER  "checker/bindings/vector_add.hpp"
//   TILEPUZZLES_KERNEL_FILE     the absolute path of the stub or solution
//   TILEPUZZLES_IMPL_STUB or TILEPUZZLES_IMPL_SOLUTION
#include "checker/sim_launch.hpp"

#define TILEPUZZLES_MODULE_LAUNCH tp::sim_launch
#define TILEPUZZLES_MODULE_BACKEND "simulator"
#include "checker/module_source.inc"
