// What the translation units of the GPU benchmark module share (bench/gpu_benchmarks.cu, the
// matmul sweep bench/gpu_bench_matmul.cu, and bench/gpu_bench_kernels.cu, which is compiled once
// per warp count because tl is built for one count per unit, tile/config.hpp): the run's session,
// which reports each measured row to the tilepuzzles program, the problems and their checks, and
// the table of the solutions' kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "checker/bench_module_abi.hpp"
#include "checker/gpu_launch.cuh"
#include "cuda/timing.cuh"

namespace tp::bench_gpu {

using tp::gpu::cuda_check;
using tp::gpu::device_array;

struct session {
  const tp_bench_request* request;
  const tp_bench_host* host;
  int l2_bytes = 0;
  int done = 0, total = 0;

  void progress(const std::string& what) { host->progress(host->context, what.c_str(), done, total); }

  // One row: `bytes` and `flops` are the work the row counts (0 where it counts none).
  void report(const char* benchmark, const std::string& variant, const std::string& size,
              const char* dtype, double x, const char* x_name, const tp::gpu::timing& t,
              double bytes, double flops, double error, const std::string& problem,
              const char* causal = "") {
    tp_bench_row row{benchmark, variant.c_str(), size.c_str(), dtype, x, x_name,
                     t.median_ms, t.min_ms, t.max_ms, t.runs, t.launches_per_sample, t.graph ? 1 : 0,
                     bytes, flops,
                     error, problem.empty() ? nullptr : problem.c_str(), causal};
    host->row(host->context, &row);
    ++done;
  }
};

// ---- the softmaxes over x[rows, cols], fp32

struct softmax_problem {
  int rows, cols;
  std::vector<float> hx;
  std::vector<device_array<float>> x, z;
  int sets;
};

softmax_problem make_softmax_problem(const session& s, int rows, int cols);

// Every element finite, and 64 rows spread over the matrix (the first and the last among them)
// against a double-precision softmax: the largest relative error, or infinity.
double softmax_error(const softmax_problem& p);

// Checks, then times, one softmax kernel (one program per B0 rows) on `p`.
template <class Kernel, int B0>
void softmax(session& s, const char* benchmark, const std::string& variant, softmax_problem& p) {
  const std::string size = std::to_string(p.rows) + "x" + std::to_string(p.cols);
  s.progress(std::string(benchmark) + " " + size + " " + variant);
  const double bytes = 8.0 * p.rows * p.cols;
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % p.sets;
    constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const float>, tl::ptr<float>, int, int>;
    function<<<(p.rows + B0 - 1) / B0, 32 * Kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(
            Kernel{}, {p.x[k].data}, {p.z[k].data}, p.rows, p.cols);
  };
  cuda_check(cudaMemset(p.z[0].data, 0xff, sizeof(float) * p.rows * p.cols), "cudaMemset");  // NaN
  launch(0, nullptr);
  cuda_check(cudaGetLastError(), benchmark);
  cuda_check(cudaDeviceSynchronize(), benchmark);
  const double error = softmax_error(p);
  if (!(error < 1e-5)) {
    char why[160];
    std::snprintf(why, sizeof why, "WRONG: relative error %.2g against a double-precision softmax (bound 1e-5)", error);
    s.report(benchmark, variant, size, "fp32", p.cols, "columns", {}, bytes, 0, error, why);
    return;
  }
  const auto t = tp::gpu::time_launches(launch, s.request->warmup, s.request->runs);
  s.report(benchmark, variant, size, "fp32", p.cols, "columns", t, bytes, 0, error, "");
}

struct shape {
  int rows, cols;
};
// The long softmaxes' sweep: 4096 rows of 1024 ... 32768 columns, then the long rows of issue 12's
// table.
inline const std::vector<shape> long_shapes = {{4096, 1024}, {4096, 2048},  {4096, 4096},
                                               {4096, 8192}, {4096, 16384}, {4096, 32768},
                                               {1024, 65536}, {1024, 131072}};

// ---- attention, fp16: q, k, v, o[batch, heads, tokens, head_dim]

struct attention_problem {
  int batch, heads, tokens, head_dim;
  bool causal;
  std::vector<unsigned short> hq, hk, hv;  // the inputs' bits, fp16
  std::vector<device_array<unsigned short>> q, k, v, o;
  int sets;
  std::string size() const;
  double flops() const;  // 4 B H T^2 D, half of it when causal
};

attention_problem make_attention_problem(const session& s, int batch, int heads, int tokens,
                                         int head_dim, bool causal);

// The largest error, over 64 query rows of 4 (batch, head) pairs spread over the problem, of o
// against attention computed in double from the same fp16 inputs, relative to the largest |o|
// of each row; infinity if any element of o is not finite.
double attention_error(const attention_problem& p);

// ---- the kernels, each built in the translation unit of its warp count

// tl is built for one warp count per unit (tile/config.hpp), and a solution's num_warps may
// depend on its block sizes. So the kernels are compiled in bench/gpu_bench_kernels.cu, once per
// count (bench/CMakeLists.txt): each unit adds to the table the solutions' configurations of its
// count, as the solution files write them, and the same kernels built for a neighbouring count
// (twice or half the file's), to show what the file's choice is worth.
using softmax_runner = void (*)(session& s, const char* benchmark, const std::string& variant,
                                softmax_problem& p);
using attention_runner = void (*)(session& s, const std::string& variant, attention_problem& p);
// A puzzle's solution on its spec's case at `sizes` (bench/gpu_bench_puzzles.cuh).
using puzzle_runner = void (*)(session& s, const std::string& benchmark, const std::vector<int>& sizes,
                               const std::vector<int>& blocks, const std::string& variant);
template <class Runner>
struct kernel_entry {
  Runner run = nullptr;
  int warps = 0;
};
struct kernel_table {
  // kernel_key(...) -> the runner
  std::map<std::string, kernel_entry<softmax_runner>> softmax;
  std::map<std::string, kernel_entry<attention_runner>> attention;
  std::map<std::string, kernel_entry<puzzle_runner>> puzzles;  // kernel_key(puzzle id, blocks)
};

// `warps` 0 is the solution as its file writes it; otherwise the same kernel built for `warps`.
inline std::string kernel_key(const std::string& kernel, std::initializer_list<int> blocks,
                              int warps = 0) {
  std::string key = kernel;
  for (const int b : blocks) key.append(" ").append(std::to_string(b));
  if (warps) key.append(" w").append(std::to_string(warps));
  return key;
}

template <int Warps>
void add_kernels(kernel_table& table);
template <>
void add_kernels<1>(kernel_table&);
template <>
void add_kernels<2>(kernel_table&);
template <>
void add_kernels<4>(kernel_table&);
template <>
void add_kernels<8>(kernel_table&);
template <>
void add_kernels<16>(kernel_table&);

inline const kernel_table& kernels() {
  static const kernel_table table = [] {
    kernel_table t;
    add_kernels<1>(t), add_kernels<2>(t), add_kernels<4>(t), add_kernels<8>(t), add_kernels<16>(t);
    return t;
  }();
  return table;
}

// The matmul sweep with cuBLAS beside it (bench/gpu_bench_matmul.cu).
void matmul_sweep(session& s);
int matmul_rows();

}  // namespace tp::bench_gpu
