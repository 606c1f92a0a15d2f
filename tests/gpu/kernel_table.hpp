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

template <int W>
void add_test_kernels(test_kernel_table& table);

// Every kernel of the backend under test.
const test_kernel_table& kernels_under_test();

}  // namespace tp::gpu_tests
