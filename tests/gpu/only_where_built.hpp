// The GPU tests' kernels of the warp counts a build has (tests/gpu/kernel_table.hpp), for the
// Catch2 tests that walk the kernel lists.
#pragma once

#include <catch2/catch.hpp>

#include <string_view>

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

// How many listed test kernels `matches` selects, and how many of those this build has: a test
// that counts the kernels it ran checks both, so that a build of fewer warp counts
// (TILEPUZZLES_GPU_TEST_WARPS) still proves that the selection finds every kernel it should.
struct listed_and_built {
  int listed = 0;
  int built = 0;
};

// `for_each` walks a list (for_each_test_kernel, for_each_dot_kernel) with the callable it is given.
template <class ForEach, class Matches>
listed_and_built count_kernels(ForEach for_each, Matches matches) {
  listed_and_built n;
  for_each([&]<class Kernel>(const char* name) {
    if (matches.template operator()<Kernel>(std::string_view(name))) {
      ++n.listed;
      n.built += built_with_warps(Kernel::num_warps) ? 1 : 0;
    }
  });
  return n;
}

template <class Matches>
listed_and_built count_test_kernels(Matches matches) {
  return count_kernels([](auto&& f) { for_each_test_kernel(f); }, matches);
}

}  // namespace tp::gpu_tests
