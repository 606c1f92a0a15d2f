// The matmul sweep of `tilepuzzles bench`: square z = x @ y of sizes that fill the GPU, the
// project's solution (puzzle 14, with the dtypes its kernel runs with on the GPU) beside cuBLAS in
// the same run (linked from the CUDA toolkit): SGEMM in exact fp32 (TF32 off), and cublasGemmEx
// with TF32 products, fp16 and bf16 operands (fp32 accumulation, output in the operands' type, as
// torch.matmul does).
//
// Every implementation is first run once on an output filled with NaN and checked: every element
// finite, and 256 sampled elements against a double-precision product of the operands as the
// implementation received them (rounded to fp16 or bf16 where those are the dtype), by the
// norm-wise relative error ||out - ref|| / ||ref|| over the sample, under the bound of its dtype
// (the bounds of bench/torch_triton_baselines.py: fp32 2e-5, TF32 and fp16 5e-3, bf16 2e-2). An
// fp32 SGEMM that used TF32 would land near 3e-4 and fail. Only then is it timed. Matmul is bound
// by arithmetic, not by memory, so its inputs are not rotated.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu_bench_session.cuh"
#include "solutions/matmul.hpp"

namespace tp::bench_gpu {

namespace {

void cublas_check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
}

// Square sizes: 1024 (128 tiles of 128 x 64, under one per multiprocessor of an H100) up to 8192.
const std::vector<int> matmul_sizes = {1024, 2048, 4096, 8192};

struct dtype_info {
  const char* name;  // the CSV's dtype
  double bound;      // of the norm-wise relative error
};
constexpr dtype_info fp32{"fp32", 2e-5}, tf32{"tf32", 5e-3}, fp16{"fp16", 5e-3}, bf16{"bf16", 2e-2};

float to_float(float v) { return v; }
float to_float(__half v) { return __half2float(v); }
float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return v;
}

// x, y [n, n] in one element type, row-major, on the host (as the device got them) and the device.
template <class T>
struct operands {
  int n;
  std::vector<T> hx, hy;
  device_array<T> x, y, z;
  operands(int n_, const std::vector<float>& fx, const std::vector<float>& fy)
      : n(n_), hx(fx.size()), hy(fy.size()), x(fx.size()), y(fy.size()), z(fx.size()) {
    for (std::size_t i = 0; i < fx.size(); ++i) hx[i] = from_float<T>(fx[i]), hy[i] = from_float<T>(fy[i]);
    cuda_check(cudaMemcpy(x.data, hx.data(), sizeof(T) * hx.size(), cudaMemcpyHostToDevice), "copy x");
    cuda_check(cudaMemcpy(y.data, hy.data(), sizeof(T) * hy.size(), cudaMemcpyHostToDevice), "copy y");
  }
};

// The norm-wise relative error of z (on the device) over 256 sampled elements against a
// double-precision product of the operands; infinity if any element of z is not finite.
template <class T, class Out>
double matmul_error(const operands<T>& p, const Out* z) {
  const long long elements = static_cast<long long>(p.n) * p.n;
  std::vector<Out> hz(elements);
  cuda_check(cudaMemcpy(hz.data(), z, sizeof(Out) * elements, cudaMemcpyDeviceToHost), "copy z");
  for (const Out& v : hz)
    if (!std::isfinite(to_float(v))) return INFINITY;
  double diff = 0, norm = 0;
  for (int s = 0; s < 256; ++s) {
    const long long i = (s * 7919LL + 13) % p.n, j = (s * 104729LL + 7) % p.n;
    double want = 0;
    for (int k = 0; k < p.n; ++k)
      want += static_cast<double>(to_float(p.hx[i * p.n + k])) * to_float(p.hy[static_cast<long long>(k) * p.n + j]);
    const double got = to_float(hz[i * p.n + j]);
    diff += (got - want) * (got - want);
    norm += want * want;
  }
  return std::sqrt(diff / norm);
}

struct matmul_run {
  session& s;
  int n;
  std::string size;
  double flops;

  // Poisons z, runs once, checks, and times `launch` when the check passes.
  template <class T, class Out, class Launch>
  void measure(const char* benchmark, const std::string& variant, const dtype_info& dtype,
               const operands<T>& p, Out* z, Launch&& launch) {
    s.progress(std::string(benchmark) + " " + size + " " + dtype.name + " " + variant);
    cuda_check(cudaMemset(z, 0xff, sizeof(Out) * n * static_cast<long long>(n)), "cudaMemset");  // NaN
    launch(0, nullptr);
    cuda_check(cudaGetLastError(), benchmark);
    cuda_check(cudaDeviceSynchronize(), benchmark);
    const double error = matmul_error(p, z);
    if (!(error < dtype.bound)) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "WRONG: relative error %.2g against a double-precision product (bound %.0e for %s)",
                    error, dtype.bound, dtype.name);
      s.report(benchmark, variant, size, dtype.name, n, "M = N = K", {}, 0, flops, error, why);
      return;
    }
    const auto t = tp::gpu::time_launches(launch, s.request->warmup, s.request->runs);
    s.report(benchmark, variant, size, dtype.name, n, "M = N = K", t, 0, flops, error, "");
  }
};

// cuBLAS is column-major: z = x @ y in row-major is z^T = y^T @ x^T in column-major, which is
// gemm(N, N) of y and x with every leading dimension n.
template <class T, class Out>
void cublas_gemm(matmul_run& r, cublasHandle_t handle, const char* variant, const dtype_info& dtype,
                 const operands<T>& p, Out* z, cudaDataType_t type, cudaDataType_t out_type,
                 cublasComputeType_t compute) {
  const float one = 1, zero = 0;
  const int n = r.n;
  r.measure("cublas", variant, dtype, p, z, [&](int, cudaStream_t stream) {
    cublas_check(cublasSetStream(handle, stream), "cublasSetStream");
    cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p.y.data, type, n,
                              p.x.data, type, n, &zero, z, out_type, n, compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  });
}

// The matmul solution, fp32 operands (tl::dot's FFMA lowering, cuda/dot.cuh).
template <int B0, int B1, int B_MID>
void solution_fp32(matmul_run& r, operands<float>& p) {
  using kernel = solutions::Matmul<B0, B1, B_MID>;
  const std::string variant = "B0=" + std::to_string(B0) + " B1=" + std::to_string(B1) +
                              " B_MID=" + std::to_string(B_MID);
  const int n = r.n;
  const dim3 grid((n + B0 - 1) / B0, (n + B1 - 1) / B1, 1);
  r.measure("matmul", variant, fp32, p, p.z.data, [&](int, cudaStream_t stream) {
    tp::gpu::program<kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int, int,
                     int, int><<<grid, 32 * kernel::num_warps, 0, stream>>>(kernel{}, {p.x.data}, {p.y.data},
                                                                  {p.z.data}, n, n, 1, n);
  });
}

constexpr int solution_variants = 6;

}  // namespace

int matmul_rows() { return static_cast<int>(matmul_sizes.size()) * (4 + solution_variants); }

void matmul_sweep(session& s) {
  cublasHandle_t handle = nullptr;
  cublas_check(cublasCreate(&handle), "cublasCreate");
  struct destroy {
    cublasHandle_t h;
    ~destroy() { cublasDestroy(h); }
  } guard{handle};
  for (const int n : matmul_sizes) {
    const long long elements = static_cast<long long>(n) * n;
    // Fresh inputs for every size, uniform in [-1, 1).
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> fx(elements), fy(elements);
    for (auto& v : fx) v = uniform(rng);
    for (auto& v : fy) v = uniform(rng);
    matmul_run r{s, n, std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n),
                 2.0 * n * n * static_cast<double>(n)};
    {
      operands<float> p(n, fx, fy);
      // Exact fp32: the default math mode never uses TF32 unless NVIDIA_TF32_OVERRIDE asks for
      // it, which the check above would catch.
      cublas_check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      r.measure("cublas", "cublasSgemm", fp32, p, p.z.data, [&](int, cudaStream_t stream) {
        const float one = 1, zero = 0;
        cublas_check(cublasSetStream(handle, stream), "cublasSetStream");
        cublas_check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p.y.data, n,
                                 p.x.data, n, &zero, p.z.data, n),
                     "cublasSgemm");
      });
      cublas_gemm(r, handle, "cublasGemmEx TF32", tf32, p, p.z.data, CUDA_R_32F, CUDA_R_32F,
                  CUBLAS_COMPUTE_32F_FAST_TF32);
      // The solution in each dtype its kernel runs with on the GPU: fp32 today (the tensor-core
      // dtypes join here when tl::dot lowers them).
      solution_fp32<128, 64, 16>(r, p);
      solution_fp32<64, 64, 16>(r, p);
      solution_fp32<64, 128, 16>(r, p);
      // Larger tiles: more multiply-adds per value each thread reads from shared memory (a
      // thread of 256 x 64 holds 8 rows x 16 columns: 128 per 24 values, against 64 per 20 for
      // 128 x 64), for fewer warps per multiprocessor (more registers per thread).
      solution_fp32<256, 64, 16>(r, p);
      solution_fp32<128, 128, 16>(r, p);
      solution_fp32<128, 64, 32>(r, p);
    }
    {
      operands<__half> p(n, fx, fy);
      cublas_gemm(r, handle, "cublasGemmEx fp16", fp16, p, p.z.data, CUDA_R_16F, CUDA_R_16F,
                  CUBLAS_COMPUTE_32F);
    }
    {
      operands<__nv_bfloat16> p(n, fx, fy);
      cublas_gemm(r, handle, "cublasGemmEx bf16", bf16, p, p.z.data, CUDA_R_16BF, CUDA_R_16BF,
                  CUBLAS_COMPUTE_32F);
    }
  }
}

}  // namespace tp::bench_gpu
