// What tests/gpu/launch_bounds.cu reports of one kernel's build and run.
#pragma once

#include <string>

namespace tp::gpu_tests {

struct launch_bounds_result {
  int registers = 0;  // per thread, as ptxas allotted them
  int blocks_per_multiprocessor = 0;
  std::string error;  // empty when the kernel ran and gave the right product
};

// A [128, 256] fp32 product with 8 warps, built without min_blocks_per_multiprocessor or with 2.
launch_bounds_result run_wide_product(bool two_blocks);

}  // namespace tp::gpu_tests
