// The matmul sweep of `tilepuzzles bench`: square z = x @ y of sizes that fill the GPU, beside
// cuBLAS in the same run (linked from the CUDA toolkit):
//   fp32   the solution (puzzle 14: tl::dot's exact FFMA lowering, cuda/dot.cuh) at several tile
//          shapes, against SGEMM in exact fp32 (TF32 off);
//   tf32   the solution's kernel with tl::dot(a, b, acc, tl::tf32) (mma.sync m16n8k8,
//          cuda/mma.cuh), against cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32;
//   fp16   the same kernel with float16 or bfloat16 operands (mma.sync m16n8k16) and fp32
//   bf16   accumulation and output, against cublasGemmEx with fp16 / bf16 operands and
//          CUBLAS_COMPUTE_32F (output in the operands' type, as torch.matmul does).
// The tensor-core kernels also come with the next step's operands loaded before this step's dot,
// by hand (what a pipelined k-loop does); fp16 and bf16 also as the fast variant of the solution
// (solutions/matmul_fast.hpp: tensor descriptors in a pipelined range, rings the copy engine
// fills, grouped tiles).
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
#include <cstdlib>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/gpu_bench_session.cuh"
#include "bench/matmul_fast_configs.hpp"
#include "bench/matmul_kernels.hpp"
#include "solutions/matmul.hpp"
#include "tile/precision.hpp"

namespace tp::bench_gpu {

// bench/gpu_bench_matmul_w8.cu
bool matmul_w8(bool bf16, int config, const void* x, const void* y, float* z, int n,
               cudaStream_t stream);

namespace {

void cublas_check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
}

// Square sizes: 1024 (128 tiles of 128 x 64, under one per multiprocessor of an H100) up to 8192;
// TILEPUZZLES_MATMUL_SIZES (e.g. "4096") narrows the sweep for a short session.
std::vector<int> sweep_sizes() {
  std::vector<int> sizes = {1024, 2048, 4096, 8192};
  if (const char* only = std::getenv("TILEPUZZLES_MATMUL_SIZES")) {
    std::vector<int> chosen;
    for (const char* at = only; *at;) {
      char* end = nullptr;
      const long v = std::strtol(at, &end, 10);
      if (end == at) break;
      if (v >= 256 && v <= 16384 && v % 128 == 0) chosen.push_back(static_cast<int>(v));
      at = *end ? end + 1 : end;
    }
    if (!chosen.empty()) sizes = chosen;
  }
  return sizes;
}
const std::vector<int> matmul_sizes = sweep_sizes();

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
  device_array<float> z32;  // the tl kernels' output: fp32 whatever the operands
  operands(int n_, const std::vector<float>& fx, const std::vector<float>& fy)
      : n(n_), hx(fx.size()), hy(fy.size()), x(fx.size()), y(fy.size()), z(fx.size()),
        z32(std::is_same_v<T, float> ? 1 : fx.size()) {
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

const char* const prefetched = ", next operands loaded first";
std::string staged(int stages) { return ", tl::range of " + std::to_string(stages) + " stages"; }

std::string tile_name(int b0, int b1, int b_mid) {
  return "B0=" + std::to_string(b0) + " B1=" + std::to_string(b1) + " B_MID=" + std::to_string(b_mid);
}

// A tl matmul kernel on operands of type T (float, __half or __nv_bfloat16; tl's float16 and
// bfloat16 have the same bits), fp32 output.
template <class Kernel, class TlT, class T, int B0, int B1>
void tl_matmul(matmul_run& r, const std::string& variant, const dtype_info& dtype, operands<T>& p) {
  const int n = r.n;
  float* z = std::is_same_v<T, float> ? reinterpret_cast<float*>(p.z.data) : p.z32.data;
  const dim3 grid((n + B0 - 1) / B0, (n + B1 - 1) / B1, 1);
  const auto* x = reinterpret_cast<const TlT*>(p.x.data);
  const auto* y = reinterpret_cast<const TlT*>(p.y.data);
  r.measure("matmul", variant, dtype, p, z, [&](int, cudaStream_t stream) {
    constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const TlT>, tl::ptr<const TlT>, tl::ptr<float>, int, int, int,
                     int>;
    function<<<grid, 32 * Kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(Kernel{}, {x}, {y}, {z}, n,
                                                                      n, 1, n);
  });
}

// The matmul solution, fp32 operands (tl::dot's FFMA lowering, cuda/dot.cuh).
template <int B0, int B1, int B_MID>
void solution_fp32(matmul_run& r, operands<float>& p) {
  tl_matmul<solutions::Matmul<B0, B1, B_MID>, float, float, B0, B1>(r, tile_name(B0, B1, B_MID),
                                                                      fp32, p);
}

// The solution's loop with TF32 products (Kernel: MatmulAs or MatmulPrefetch).
template <template <class, class, int, int, int> class Kernel, int B0, int B1, int B_MID>
void tf32_kernel(matmul_run& r, operands<float>& p, const char* how) {
  tl_matmul<Kernel<float, tl::tf32_t, B0, B1, B_MID>, float, float, B0, B1>(
      r, tile_name(B0, B1, B_MID) + how, tf32, p);
}

// The fast variant of the solution (solutions/matmul_fast.hpp) in each configuration of
// bench/matmul_fast_configs.hpp, each built in its own unit (bench/gpu_bench_matmul_fast.cu).
template <class T, int... I>
void fast_rows(matmul_run& r, const dtype_info& dtype, operands<T>& p, std::integer_sequence<int, I...>) {
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
  (r.measure("matmul", fast_config_name(fast_configs[I]), dtype, p, p.z32.data,
             [&](int, cudaStream_t stream) { matmul_fast<I>(bf16, p.x.data, p.y.data, p.z32.data, r.n, stream); }),
   ...);
}

// The solution's loop with half operands: T is cuBLAS's type, TlT tl's of the same bits.
template <class T, class TlT>
void half_sweep(matmul_run& r, cublasHandle_t handle, const std::vector<float>& fx,
                const std::vector<float>& fy) {
  constexpr bool is_fp16 = std::is_same_v<T, __half>;
  const dtype_info& dtype = is_fp16 ? fp16 : bf16;
  operands<T> p(r.n, fx, fy);
  cublas_gemm(r, handle, is_fp16 ? "cublasGemmEx fp16" : "cublasGemmEx bf16", dtype, p, p.z.data,
              is_fp16 ? CUDA_R_16F : CUDA_R_16BF, is_fp16 ? CUDA_R_16F : CUDA_R_16BF,
              CUBLAS_COMPUTE_32F);
  fast_rows(r, dtype, p, std::make_integer_sequence<int, fast_config_count>{});
  using tl::ieee_t;
  tl_matmul<MatmulAs<TlT, ieee_t, 64, 64, 32>, TlT, T, 64, 64>(r, tile_name(64, 64, 32), dtype, p);
  tl_matmul<MatmulAs<TlT, ieee_t, 128, 64, 32>, TlT, T, 128, 64>(r, tile_name(128, 64, 32), dtype, p);
  tl_matmul<MatmulAs<TlT, ieee_t, 128, 128, 32>, TlT, T, 128, 128>(r, tile_name(128, 128, 32), dtype, p);
  tl_matmul<MatmulAs<TlT, ieee_t, 128, 128, 64>, TlT, T, 128, 128>(r, tile_name(128, 128, 64), dtype, p);
  tl_matmul<MatmulPrefetch<TlT, ieee_t, 64, 64, 32>, TlT, T, 64, 64>(r, tile_name(64, 64, 32) + prefetched, dtype, p);
  tl_matmul<MatmulPrefetch<TlT, ieee_t, 128, 128, 32>, TlT, T, 128, 128>(r, tile_name(128, 128, 32) + prefetched, dtype, p);
  // The loop as a pipelined range: the operands copied into dot's shared memory ahead.
  tl_matmul<MatmulStaged<TlT, ieee_t, 64, 64, 32, 3>, TlT, T, 64, 64>(r, tile_name(64, 64, 32) + staged(3), dtype, p);
  tl_matmul<MatmulStaged<TlT, ieee_t, 128, 64, 32, 3>, TlT, T, 128, 64>(r, tile_name(128, 64, 32) + staged(3), dtype, p);
  tl_matmul<MatmulStaged<TlT, ieee_t, 128, 64, 32, 4>, TlT, T, 128, 64>(r, tile_name(128, 64, 32) + staged(4), dtype, p);
  tl_matmul<MatmulStaged<TlT, ieee_t, 64, 128, 32, 3>, TlT, T, 64, 128>(r, tile_name(64, 128, 32) + staged(3), dtype, p);
  tl_matmul<MatmulStaged<TlT, ieee_t, 128, 128, 32, 2>, TlT, T, 128, 128>(r, tile_name(128, 128, 32) + staged(2), dtype, p);
  // 8 warps (bench/gpu_bench_matmul_w8.cu).
  const int w8_tiles[][3] = {{128, 128, 32}, {128, 256, 32}, {256, 128, 32}, {128, 128, 32}, {128, 128, 64}};
  const int w8_stages[] = {1, 1, 1, 3, 2};
  const int w8_min_blocks[] = {1, 1, 1, 2, 2};  // min_blocks_per_multiprocessor
  for (int config = 0; config < 5; ++config) {
    std::string name = tile_name(w8_tiles[config][0], w8_tiles[config][1], w8_tiles[config][2]);
    if (w8_stages[config] > 1) name += staged(w8_stages[config]);
    if (w8_min_blocks[config] > 1) name += ", " + std::to_string(w8_min_blocks[config]) + " blocks per multiprocessor";
    r.measure("matmul", name + ", 8 warps", dtype, p, p.z32.data, [&](int, cudaStream_t stream) {
      matmul_w8(!is_fp16, config, p.x.data, p.y.data, p.z32.data, r.n, stream);
    });
  }
}
constexpr int half_rows = 1 + fast_config_count + 6 + 5 + 5;

constexpr int fp32_rows = 2 + 6 + 7;  // SGEMM, TF32 cuBLAS, the solution's 6 tiles, TF32's 7

}  // namespace

int matmul_rows() { return static_cast<int>(matmul_sizes.size()) * (fp32_rows + 2 * half_rows); }

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
      // The solution: exact fp32.
      solution_fp32<128, 64, 16>(r, p);
      solution_fp32<64, 64, 16>(r, p);
      solution_fp32<64, 128, 16>(r, p);
      // Larger tiles: more multiply-adds per value each thread reads from shared memory (a
      // thread of 256 x 64 holds 8 rows x 16 columns: 128 per 24 values, against 64 per 20 for
      // 128 x 64), for fewer warps per multiprocessor (more registers per thread).
      solution_fp32<256, 64, 16>(r, p);
      solution_fp32<128, 128, 16>(r, p);
      solution_fp32<128, 64, 32>(r, p);
      // Its loop with TF32 products.
      tf32_kernel<MatmulAs, 64, 64, 32>(r, p, "");
      tf32_kernel<MatmulAs, 128, 64, 32>(r, p, "");
      tf32_kernel<MatmulAs, 64, 128, 32>(r, p, "");
      tf32_kernel<MatmulAs, 128, 128, 32>(r, p, "");
      tf32_kernel<MatmulAs, 128, 128, 16>(r, p, "");
      tf32_kernel<MatmulPrefetch, 64, 64, 32>(r, p, prefetched);
      tf32_kernel<MatmulPrefetch, 128, 128, 32>(r, p, prefetched);
    }
    half_sweep<__half, tl::float16>(r, handle, fx, fy);
    half_sweep<__nv_bfloat16, tl::bfloat16>(r, handle, fx, fy);
  }
}

}  // namespace tp::bench_gpu
