// What the translation units of the GPU benchmark module share (bench/gpu_benchmarks.cu, the
// matmul sweep bench/gpu_bench_matmul.cu, and bench/gpu_bench_warps.cu, which is compiled once per
// warp count because tl is built for one count per unit, tile/config.hpp): the run's session, which
// reports each measured row to the tilepuzzles program, and the softmax problems and their check.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/gpu_bench_abi.hpp"
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
              double bytes, double flops, double error, const std::string& problem) {
    tp_bench_row row{benchmark, variant.c_str(), size.c_str(), dtype, x, x_name,
                     t.median_ms, t.min_ms, t.max_ms, t.runs, t.launches_per_sample, t.graph ? 1 : 0,
                     bytes, flops,
                     error, problem.empty() ? nullptr : problem.c_str()};
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
    tp::gpu::program<Kernel, tl::ptr<const float>, tl::ptr<float>, int, int>
        <<<(p.rows + B0 - 1) / B0, 32 * Kernel::num_warps, 0, stream>>>(
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

// ---- what the other units run

// The matmul sweep with cuBLAS beside it (bench/gpu_bench_matmul.cu).
void matmul_sweep(session& s);
int matmul_rows();

// The softmax solutions built for other warp counts than their files' 4 (bench/gpu_bench_warps.cu,
// one unit per count): what more or fewer warps per program would buy, measured beside the
// solutions as they are. Each runs the variants it has for `benchmark`, and says how many rows.
void warps_variants_1(session& s, const std::string& benchmark);
void warps_variants_2(session& s, const std::string& benchmark);
void warps_variants_8(session& s, const std::string& benchmark);
void warps_variants_16(session& s, const std::string& benchmark);
int warps_variant_rows_1(const std::string& benchmark);
int warps_variant_rows_2(const std::string& benchmark);
int warps_variant_rows_8(const std::string& benchmark);
int warps_variant_rows_16(const std::string& benchmark);

inline void warps_variants(session& s, const std::string& benchmark) {
  warps_variants_1(s, benchmark);
  warps_variants_2(s, benchmark);
  warps_variants_8(s, benchmark);
  warps_variants_16(s, benchmark);
}
inline int warps_variant_rows(const std::string& benchmark) {
  return warps_variant_rows_1(benchmark) + warps_variant_rows_2(benchmark) +
         warps_variant_rows_8(benchmark) + warps_variant_rows_16(benchmark);
}

}  // namespace tp::bench_gpu
