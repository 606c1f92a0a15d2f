// Every kernel of the GPU tests, from the units built for each warp count (TILEPUZZLES_WARP_COUNTS)
// and each part of the kernels (TILEPUZZLES_KERNEL_PARTS).
#include <algorithm>
#include <utility>

#include "tests/gpu/kernel_table.hpp"

namespace tp::gpu_tests {

namespace {

template <int W, int... Parts>
void add_every_part(test_kernel_table& t, std::integer_sequence<int, Parts...>) {
  (add_test_kernels<W, Parts>(t), ...);
}

template <int... Warps>
test_kernel_table table_of() {
  static_assert(TILEPUZZLES_KERNEL_PARTS >= 1 && TILEPUZZLES_KERNEL_PARTS <= kernel_families);
  test_kernel_table t;
  (add_every_part<Warps>(t, std::make_integer_sequence<int, TILEPUZZLES_KERNEL_PARTS>{}), ...);
  return t;
}

}  // namespace

const test_kernel_table& kernels_under_test() {
  // The warp counts this executable's kernel units were built for (tests/CMakeLists.txt).
  static const test_kernel_table table = table_of<TILEPUZZLES_WARP_COUNTS>();
  return table;
}

bool built_with_warps(int warps) {
  constexpr int counts[] = {TILEPUZZLES_WARP_COUNTS};
  return std::find(std::begin(counts), std::end(counts), warps) != std::end(counts);
}

}  // namespace tp::gpu_tests
