// What `tilepuzzles bench` measures: one entry per benchmarked puzzle, shared by the command
// (checker/bench.cpp, which needs it to answer without a GPU) and the GPU benchmark module
// (bench/gpu_benchmarks.cu, which runs the sweeps). A puzzle whose kernel cannot run on the GPU
// yet is listed with what it waits for, so that it slots in when that lands.
#pragma once

#include <string_view>

namespace tp::bench {

struct benchmark_entry {
  std::string_view puzzle;   // the puzzle id, also the CSV's `benchmark`
  std::string_view sweep;    // the sizes, in words
  std::string_view measure;  // what GB/s (or TFLOP/s) counts
  std::string_view pending;  // empty, or why it is not benchmarked yet
};

inline constexpr benchmark_entry catalogue[] = {
    {"vector-add", "fp32, N = 2^20 ... 2^28 elements",
     "12 bytes per element: x and y read once, z written once", ""},
    {"long-softmax-3loop", "fp32, 4096 rows x N columns, N = 1024 ... 32768, then 1024 x 65536 and 1024 x 131072",
     "8 bytes per element (x read once, z written once), whatever the algorithm reads", ""},
    {"long-softmax-2loop", "fp32, 4096 rows x N columns, N = 1024 ... 32768, then 1024 x 65536 and 1024 x 131072; variants with num_warps other than the solution's 4 are the same kernel built for that count",
     "8 bytes per element (x read once, z written once), whatever the algorithm reads", ""},
    {"softmax-fused", "fp32, 4096 rows x N columns, N = 256 ... 16384, one row per tile (32768 needs more than the solution's 4 warps); variants with num_warps other than the solution's 4 are the same kernel built for that count",
     "8 bytes per element (x read once, z written once)", ""},
    {"matmul", "M = N = K = 1024 ... 8192; the solution in fp32 (the dtypes its tl::dot runs on the GPU), beside cuBLAS: SGEMM (exact fp32, TF32 off), and cublasGemmEx with TF32, fp16 and bf16",
     "2 M N K flops; x cuBLAS = cuBLAS's time in the same dtype / this row's", ""},
    {"flash-attention", "batch 4, 16 heads, 4096 tokens, head_dim 64 and 128, fp16, against SDPA",
     "4 B H T^2 D flops", "it needs half-precision tiles and tl::dot on the GPU (issue 9)"},
};

inline const benchmark_entry* find_benchmark(std::string_view puzzle) {
  for (const auto& e : catalogue)
    if (e.puzzle == puzzle) return &e;
  return nullptr;
}

}  // namespace tp::bench
