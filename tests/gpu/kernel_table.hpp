// The kernels of the GPU tests, built for one backend (the GPU, or its host emulation) by
// tests/gpu/kernels.inc compiled once per warp count. Plain C++.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "checker/launch.hpp"

namespace tp::gpu_tests {

using launcher = std::string (*)(const launch_request&);

struct test_kernel_table {
  // The puzzles' solutions with the warps they declare: (id, blocks).
  std::map<std::tuple<std::string, std::vector<int>>, launcher> solutions;
  // A kernel with each puzzle's signature that stores nothing: (id, blocks).
  std::map<std::tuple<std::string, std::vector<int>>, launcher> storing_nothing;
  // The puzzles' solutions with every warp count: (id, blocks, warps).
  std::map<std::tuple<std::string, std::vector<int>, int>, launcher> solutions_by_warps;
  // The test kernels, by name (tests/gpu/test_kernels.hpp).
  std::map<std::string, launcher> tests;
};

// The kernels built with W warps in part `Part` of the families (tests/gpu/kernels.inc).
template <int W, int Part>
void add_test_kernels(test_kernel_table& table);

// The families of test kernels (kernels.inc): elementwise, layouts, mma, pipelined ranges,
// descriptors, dot precision, the odd and the even puzzles, descriptor rings. A build splits them
// into TILEPUZZLES_KERNEL_PARTS units per warp count.
inline constexpr int kernel_families = 9;

// Every kernel of the backend under test.
const test_kernel_table& kernels_under_test();

// Whether this executable has the kernels of `warps` warps: a GPU build may be configured for
// fewer counts than all (TILEPUZZLES_GPU_TEST_WARPS in tests/CMakeLists.txt).
bool built_with_warps(int warps);


}  // namespace tp::gpu_tests
