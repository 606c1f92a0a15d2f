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
    {"long-softmax-2loop", "fp32, 4096 rows x N columns, N = 1024 ... 32768, then 1024 x 65536 and 1024 x 131072, B1 = 1024 ... 16384 with the solution's num_warps (16 elements per thread); '(file: N)' variants are the same kernel built for twice or half the file's count",
     "8 bytes per element (x read once, z written once), whatever the algorithm reads", ""},
    {"softmax-fused", "fp32, 4096 rows x N columns, N = 256 ... 32768, one row per tile, and 2 or 4 rows per program up to N = 1024, with the solution's num_warps (16 elements per thread); '(file: N)' variants are the same kernel built for twice or half the file's count",
     "8 bytes per element (x read once, z written once)", ""},
    {"matmul", "M = N = K = 1024 ... 8192; the solution in exact fp32 beside cuBLAS SGEMM (TF32 off), and its loop with tl::tf32, fp16 and bf16 operands (the tensor cores) beside cublasGemmEx in TF32, fp16 and bf16; in fp16 and bf16 also the fast variant (solutions/matmul_fast.hpp: tensor descriptors in a pipelined range, rings the copy engine fills)",
     "2 M N K flops; x cuBLAS = cuBLAS's time in the same dtype / this row's", ""},
    {"flash-attention", "fp16, batch 4, 16 heads, 4096 tokens, head_dim 64 and 128, causal and not; B0 x B1 tiles with the solution's num_warps (4 for B0 = 64, 8 for 128, with two programs per multiprocessor at head_dim 64), 128 x 64 x 64 also with 4, 64 x 64 x 64 also with q staged, 64 x 64 x 64 and 64 x 64 x 128 also with k loaded as it lies and transposed by tl::trans, 128 x 64 x 64, 64 x 64 x 128 and 128 x 64 x 128 also as the fast variant (solutions/flash_attention_pipelined.hpp: the loop over keys a 2-stage tl::range)",
     "4 B H T^2 D flops (half of them when causal), as torch SDPA's are counted by bench/torch_triton_baselines.py", ""},
    // The puzzles below are benchmarked through their specs: the inputs `check` fills and the
    // spec's reference and tolerance, at the benchmark's sizes (bench/gpu_bench_puzzles.cuh).
    {"rms-norm", "fp32, 4096 rows x D, D = 1024 ... 8192; B0 x B1 = 1 x 2048 and 4 x 512",
     "bytes of every tensor, each read or written once: x, w, y", ""},
    {"layer-norm", "fp32, 4096 rows x D, D = 1024 ... 8192; B0 x B1 = 1 x 2048 and 4 x 512",
     "bytes of every tensor, each read or written once: x, w, b, y, mean, rstd", ""},
    {"softmax-backward", "fp32, 4096 rows x T, T = 1024 ... 8192, a row in one tile (B1 = T)",
     "bytes of every tensor, each read or written once: y, dy, dx", ""},
    {"cross-entropy", "fp32 logits, 4096 rows x V, V = 8192 and 32768, then 1024 x 131072; B0 x B1 = 1 x 2048 and 4 x 512",
     "bytes of every tensor, each read or written once: logits, target (int32), loss", ""},
    {"rope", "fp32, 4096 tokens of 128, 64 and 32 heads (the rows), head_dim D = 64, 128 and 256; B1 = D / 2 pairs, B0 x B1 = 2048",
     "bytes of every tensor, each read or written once: x, cos, sin, y", ""},
};

inline const benchmark_entry* find_benchmark(std::string_view puzzle) {
  for (const auto& e : catalogue)
    if (e.puzzle == puzzle) return &e;
  return nullptr;
}

}  // namespace tp::bench
