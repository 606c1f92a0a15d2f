// Every kernel of the GPU tests, from the units built for each warp count (TILEPUZZLES_WARP_COUNTS).
#include "tests/gpu/kernel_table.hpp"

namespace tp::gpu_tests {

namespace {

template <int... Warps>
test_kernel_table table_of() {
  test_kernel_table t;
  (add_test_kernels<Warps>(t), ...);
  return t;
}

}  // namespace

const test_kernel_table& kernels_under_test() {
  // The warp counts this executable's kernel units were built for (tests/CMakeLists.txt).
  static const test_kernel_table table = table_of<TILEPUZZLES_WARP_COUNTS>();
  return table;
}

}  // namespace tp::gpu_tests
