// The GPU tests' kernels of the warp counts a build has (tests/gpu/kernel_table.hpp), for the
// Catch2 tests that walk the kernel lists.
#pragma once

#include <catch2/catch.hpp>

#include "tests/gpu/kernel_table.hpp"

namespace tp::gpu_tests {

// f, called only for the test kernels of the warp counts this executable was built for; each other
// one is named in a warning and skipped.
template <class F>
auto only_where_built(F f) {
  return [f]<class Kernel>(const char* name) mutable {
    if (!built_with_warps(Kernel::num_warps)) {
      WARN(name << ": not built (this build's TILEPUZZLES_GPU_TEST_WARPS leaves out "
                << Kernel::num_warps << " warps), not run");
      return;
    }
    f.template operator()<Kernel>(name);
  };
}

}  // namespace tp::gpu_tests
