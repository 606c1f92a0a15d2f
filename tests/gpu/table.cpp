// Every kernel of the GPU tests, from the units built for each warp count.
#include "tests/gpu/kernel_table.hpp"

namespace tp::gpu_tests {

const test_kernel_table& kernels_under_test() {
  static const test_kernel_table table = [] {
    test_kernel_table t;
    add_test_kernels<1>(t);
    add_test_kernels<2>(t);
    add_test_kernels<4>(t);
    add_test_kernels<8>(t);
    add_test_kernels<16>(t);
    add_test_kernels<32>(t);
    return t;
  }();
  return table;
}

}  // namespace tp::gpu_tests
