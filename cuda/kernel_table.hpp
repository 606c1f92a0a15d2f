// The puzzles' kernels built for the GPU, by (puzzle id, stub or solution, block sizes). Filled by
// cuda/kernels.cu, which is compiled once for each warp count (a kernel is built in the unit whose
// TL_NUM_WARPS is its num_warps); read by cuda/device.cu. Plain C++: no CUDA types.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "checker/gpu.hpp"
#include "checker/launch.hpp"

namespace tp::gpu {

using kernel_key = std::tuple<std::string, impl, std::vector<int>>;

struct kernel_table {
  std::map<kernel_key, launcher> launchers;
  // Puzzles that are not built for the GPU, and why.
  std::map<std::string, std::string> not_built;
};

// The kernels whose num_warps is W (defined by cuda/kernels.cu built with TL_NUM_WARPS = W).
template <int W>
void add_kernels(kernel_table& table);

}  // namespace tp::gpu
