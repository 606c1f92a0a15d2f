// Matmul on the GPU at size^3 in each precision tl::dot has, beside cuBLAS in the same run:
//
//   ./build/tilepuzzles_bench_gpu_matmul [size, default 4096]
//
//   fp32   the matmul solution (puzzle 14: tl::dot's exact FFMA lowering, cuda/dot.cuh), against
//          the device's fp32 FFMA peak and cuBLAS fp32 (CUBLAS_COMPUTE_32F, no TF32)
//   tf32   the same kernel with tl::dot(a, b, acc, tl::tf32) (mma.sync m16n8k8, cuda/mma.cuh),
//          against cuBLAS with CUBLAS_COMPUTE_32F_FAST_TF32
//   fp16   the same kernel with float16 operands (mma.sync m16n8k16), fp32 accumulation and
//   bf16   output, against cuBLAS with CUDA_R_16F / CUDA_R_16BF inputs and CUBLAS_COMPUTE_32F
//
// z = x @ y for square size x size matrices (one batch). Each kernel is checked first against a
// double-precision product on the host of the operands as the GPU multiplies them (a sample of
// 256 elements, relative to the sum of |x_ik * y_kj|, the scale of the summation-order error),
// then timed (median of 11 after 2 warm-ups); so is cuBLAS. Without cuBLAS at build time the
// cuBLAS rows say so. bench/gpu_session.sh's matmul step also times cuBLAS fp32 through PyTorch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if TILEPUZZLES_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "checker/gpu_launch.cuh"
#include "cuda/half_bits.hpp"
#include "solutions/matmul.hpp"
#include "tile/precision.hpp"

namespace bench_kernels {

// The matmul solution's kernel with the operands' type and the dot's input precision as
// parameters (the solution itself stays exact fp32).
template <class T, class Precision, int B0, int B1, int B_MID>
struct Matmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += B_MID) {
      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(a, b, acc, Precision{});
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

// The same with the next step's operands loaded before this step's dot, by hand (the pipelined
// k-loop the language does not have yet): their loads are in flight while the dot stages and
// multiplies the current ones.
template <class T, class Precision, int B0, int B1, int B_MID>
struct MatmulPrefetch {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto load_a = [&](int k) {
      auto ks = k + tl::arange<B_MID>();
      return tl::load(x + rows.col() * MID + ks.row(), (rows < N0).col() & (ks < MID).row(), 0.0f);
    };
    auto load_b = [&](int k) {
      auto ks = k + tl::arange<B_MID>();
      return tl::load(y + ks.col() * N1 + cols.row(), (ks < MID).col() & (cols < N1).row(), 0.0f);
    };
    tl::tile<float, B0, B1> acc = 0.0f;
    auto a = load_a(0);
    auto b = load_b(0);
    for (int k = 0; k < MID; k += B_MID) {
      auto next_a = load_a(k + B_MID);  // masked off past the end
      auto next_b = load_b(k + B_MID);
      acc = tl::dot(a, b, acc, Precision{});
      a = next_a;
      b = next_b;
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace bench_kernels

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class F>
double median_ms(F&& f, int warmup = 2, int runs = 11) {
  for (int i = 0; i < warmup; ++i) f();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  check(cudaGetLastError(), "the timed launches");
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct problem {
  int n;
  float *x, *y, *z;                   // fp32 operands and the result
  std::uint16_t *x16, *y16, *xb, *yb;  // the operands as float16 and as bfloat16
  std::vector<float> hx, hy;
};

// The operands as the precision's multiplier sees them.
enum class precision { fp32, tf32, fp16, bf16 };
const char* name_of(precision p) {
  switch (p) {
    case precision::tf32: return "tf32";
    case precision::fp16: return "fp16";
    case precision::bf16: return "bf16";
    default: return "fp32";
  }
}
float as_multiplied(float v, precision p) {
  switch (p) {
    case precision::tf32: return tl::round_to_tf32(v);
    case precision::fp16: return tl::half_bits::to_float(tl::half_bits::from_float(v));
    case precision::bf16: return tl::half_bits::bfloat16_to_float(tl::half_bits::bfloat16_from_float(v));
    default: return v;
  }
}

// The worst |z - x @ y| / sum|x * y| over a sample of 256 elements, in double, of the operands
// rounded as the precision rounds them.
double sample_error(const problem& p, precision prec) {
  std::vector<float> z(static_cast<std::size_t>(p.n) * p.n);
  check(cudaMemcpy(z.data(), p.z, sizeof(float) * z.size(), cudaMemcpyDeviceToHost), "copy back");
  double worst = 0;
  for (int s = 0; s < 256; ++s) {
    const long long i = (s * 7919LL) % p.n, j = (s * 104729LL) % p.n;
    double want = 0, scale = 0;
    for (int k = 0; k < p.n; ++k) {
      const double t = static_cast<double>(as_multiplied(p.hx[i * p.n + k], prec)) *
                       as_multiplied(p.hy[static_cast<long long>(k) * p.n + j], prec);
      want += t;
      scale += std::fabs(t);
    }
    const double err = std::fabs(z[i * p.n + j] - want) / scale;
    worst = std::isnan(err) ? INFINITY : std::max(worst, err);
  }
  return worst;
}

struct row {
  precision prec;
  double ms = 0, tflops = 0, error = 0;
};

template <class T>
const T* operand(const problem& p, bool first, precision prec) {
  if (prec == precision::fp16) return reinterpret_cast<const T*>(first ? p.x16 : p.y16);
  if (prec == precision::bf16) return reinterpret_cast<const T*>(first ? p.xb : p.yb);
  return reinterpret_cast<const T*>(first ? p.x : p.y);
}

template <class K, class T>
void launch(const problem& p, int b0, int b1, precision prec) {
  const dim3 grid((p.n + b0 - 1) / b0, (p.n + b1 - 1) / b1, 1);
  tp::gpu::program<K, tl::ptr<const T>, tl::ptr<const T>, tl::ptr<float>, int, int, int, int>
      <<<grid, 32 * K::num_warps>>>(K{}, {operand<T>(p, true, prec)}, {operand<T>(p, false, prec)},
                                    {p.z}, p.n, p.n, 1, p.n);
}

// The sample's error, relative to the sum of |products| (the summation order's scale; the
// operands' rounding is in the reference): under 1e-5 for FFMA, under 1e-4 for the tensor cores,
// which truncate where they align and normalize their sums.
double error_bound(precision prec) { return prec == precision::fp32 ? 1e-5 : 1e-4; }

template <class K, class T, int B0, int B1, int B_MID>
row run(const problem& p, precision prec, double peak_tflops, double cublas_ms, bool& ok) {
  check(cudaMemset(p.z, 0xff, sizeof(float) * p.n * p.n), "cudaMemset");  // NaN
  launch<K, T>(p, B0, B1, prec);
  check(cudaDeviceSynchronize(), "matmul");
  row r{prec};
  r.error = sample_error(p, prec);
  r.ms = median_ms([&] { launch<K, T>(p, B0, B1, prec); });
  r.tflops = 2.0 * p.n * p.n * static_cast<double>(p.n) / r.ms / 1e9;
  std::printf("tl matmul %s, B0 = %3d, B1 = %3d, B_MID = %2d  %9.3f ms %7.2f TFLOP/s", name_of(prec),
              B0, B1, B_MID, r.ms, r.tflops);
  if (prec == precision::fp32) std::printf("  %.2f x FFMA peak", r.tflops / peak_tflops);
  if (cublas_ms > 0) std::printf("  %.2f x cuBLAS", cublas_ms / r.ms);
  std::printf("   max error / sum|products| %.1e\n", r.error);
  ok = ok && r.error < error_bound(prec);
  return r;
}

#if TILEPUZZLES_HAVE_CUBLAS
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s failed: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

// cuBLAS on the same operands, row-major z = x @ y as column-major z^T = y^T x^T; its time, or
// 0 when cuBLAS is absent.
double cublas_ms(cublasHandle_t handle, const problem& p, precision prec, bool& ok) {
  const float one = 1.0f, zero = 0.0f;
  const cublasComputeType_t compute =
      prec == precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cudaDataType_t type = prec == precision::fp16   ? CUDA_R_16F
                              : prec == precision::bf16 ? CUDA_R_16BF
                                                        : CUDA_R_32F;
  const void* x = operand<void>(p, true, prec);
  const void* y = operand<void>(p, false, prec);
  auto gemm = [&] {
    check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.n, p.n, &one, y, type, p.n,
                              x, type, p.n, &zero, p.z, CUDA_R_32F, p.n, compute,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  };
  check(cudaMemset(p.z, 0xff, sizeof(float) * p.n * p.n), "cudaMemset");
  gemm();
  check(cudaDeviceSynchronize(), "cuBLAS");
  const double error = sample_error(p, prec);
  const double ms = median_ms(gemm);
  std::printf("cuBLAS %s (cublasGemmEx, %s)%*s %9.3f ms %7.2f TFLOP/s   max error / sum|products| %.1e\n",
              name_of(prec), prec == precision::tf32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F",
              prec == precision::tf32 ? 0 : 10, "", ms, 2.0 * p.n * p.n * static_cast<double>(p.n) / ms / 1e9,
              error);
  // cuBLAS's TF32 rounding of the operands need not be ours (it may round to nearest even):
  // its TF32 error is reported, not held to the bound.
  if (prec != precision::tf32) ok = ok && error < error_bound(prec);
  return ms;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  problem p;
  p.n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const long long elements = static_cast<long long>(p.n) * p.n;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties (is there a GPU?)");
  int clock_khz = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  // 128 fp32 FMA lanes per multiprocessor on sm_80 and sm_90, 2 flops each.
  const double peak = props.multiProcessorCount * 128.0 * 2.0 * clock_khz / 1e9;
  std::printf("GPU: %s, %d SMs, %.0f MHz: fp32 FFMA peak %.1f TFLOP/s; x, y, z [%d, %d] fp32\n",
              props.name, props.multiProcessorCount, clock_khz / 1e3, peak, p.n, p.n);
  p.hx.resize(elements);
  p.hy.resize(elements);
  for (long long i = 0; i < elements; ++i) {
    p.hx[i] = static_cast<float>((i * 7919) % 2001) * 0.001f - 1.0f;
    p.hy[i] = static_cast<float>((i * 6007) % 1999) * 0.001f - 1.0f;
  }
  check(cudaMalloc(&p.x, sizeof(float) * elements), "cudaMalloc");
  check(cudaMalloc(&p.y, sizeof(float) * elements), "cudaMalloc");
  check(cudaMalloc(&p.z, sizeof(float) * elements), "cudaMalloc");
  check(cudaMemcpy(p.x, p.hx.data(), sizeof(float) * elements, cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(p.y, p.hy.data(), sizeof(float) * elements, cudaMemcpyHostToDevice), "copy");
  {
    std::vector<std::uint16_t> bits(elements);
    auto upload = [&](std::uint16_t*& to, const std::vector<float>& from, bool bf16) {
      for (long long i = 0; i < elements; ++i)
        bits[i] = bf16 ? tl::half_bits::bfloat16_from_float(from[i]) : tl::half_bits::from_float(from[i]);
      check(cudaMalloc(&to, sizeof(std::uint16_t) * elements), "cudaMalloc");
      check(cudaMemcpy(to, bits.data(), sizeof(std::uint16_t) * elements, cudaMemcpyHostToDevice), "copy");
    };
    upload(p.x16, p.hx, false);
    upload(p.y16, p.hy, false);
    upload(p.xb, p.hx, true);
    upload(p.yb, p.hy, true);
  }
  bool ok = true;
  double cublas_fp32 = 0, cublas_tf32 = 0;
#if TILEPUZZLES_HAVE_CUBLAS
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  cublas_fp32 = cublas_ms(handle, p, precision::fp32, ok);
#else
  std::printf("cuBLAS: not found when this was built (no ratios to cuBLAS)\n");
#endif
  {
    using solutions::Matmul;
    run<Matmul<32, 32, 32>, float, 32, 32, 32>(p, precision::fp32, peak, cublas_fp32, ok);
    run<Matmul<64, 64, 16>, float, 64, 64, 16>(p, precision::fp32, peak, cublas_fp32, ok);
    run<Matmul<64, 64, 32>, float, 64, 64, 32>(p, precision::fp32, peak, cublas_fp32, ok);
    run<Matmul<128, 64, 16>, float, 128, 64, 16>(p, precision::fp32, peak, cublas_fp32, ok);
    run<Matmul<64, 128, 16>, float, 64, 128, 16>(p, precision::fp32, peak, cublas_fp32, ok);
  }
  using bench_kernels::Matmul;
  using bench_kernels::MatmulPrefetch;
  using tl::ieee_t;
  using tl::tf32_t;
  using f16 = tl::float16;
  using bf16 = tl::bfloat16;
  double cublas_f16 = 0, cublas_bf16 = 0;
#if TILEPUZZLES_HAVE_CUBLAS
  cublas_tf32 = cublas_ms(handle, p, precision::tf32, ok);
#endif
  run<Matmul<float, tf32_t, 64, 64, 32>, float, 64, 64, 32>(p, precision::tf32, peak, cublas_tf32, ok);
  run<Matmul<float, tf32_t, 128, 64, 32>, float, 128, 64, 32>(p, precision::tf32, peak, cublas_tf32, ok);
  run<Matmul<float, tf32_t, 64, 128, 32>, float, 64, 128, 32>(p, precision::tf32, peak, cublas_tf32, ok);
  run<Matmul<float, tf32_t, 128, 128, 32>, float, 128, 128, 32>(p, precision::tf32, peak, cublas_tf32, ok);
  run<Matmul<float, tf32_t, 128, 128, 16>, float, 128, 128, 16>(p, precision::tf32, peak, cublas_tf32, ok);
  std::printf("  the next step's operands loaded before the dot, by hand:\n");
  run<MatmulPrefetch<float, tf32_t, 64, 64, 32>, float, 64, 64, 32>(p, precision::tf32, peak, cublas_tf32, ok);
  run<MatmulPrefetch<float, tf32_t, 128, 128, 32>, float, 128, 128, 32>(p, precision::tf32, peak, cublas_tf32, ok);
#if TILEPUZZLES_HAVE_CUBLAS
  cublas_f16 = cublas_ms(handle, p, precision::fp16, ok);
#endif
  run<Matmul<f16, ieee_t, 64, 64, 32>, f16, 64, 64, 32>(p, precision::fp16, peak, cublas_f16, ok);
  run<Matmul<f16, ieee_t, 128, 64, 32>, f16, 128, 64, 32>(p, precision::fp16, peak, cublas_f16, ok);
  run<Matmul<f16, ieee_t, 128, 128, 32>, f16, 128, 128, 32>(p, precision::fp16, peak, cublas_f16, ok);
  run<Matmul<f16, ieee_t, 128, 128, 64>, f16, 128, 128, 64>(p, precision::fp16, peak, cublas_f16, ok);
  std::printf("  the next step's operands loaded before the dot, by hand:\n");
  run<MatmulPrefetch<f16, ieee_t, 64, 64, 32>, f16, 64, 64, 32>(p, precision::fp16, peak, cublas_f16, ok);
  run<MatmulPrefetch<f16, ieee_t, 128, 128, 32>, f16, 128, 128, 32>(p, precision::fp16, peak, cublas_f16, ok);
#if TILEPUZZLES_HAVE_CUBLAS
  cublas_bf16 = cublas_ms(handle, p, precision::bf16, ok);
#endif
  run<Matmul<bf16, ieee_t, 64, 64, 32>, bf16, 64, 64, 32>(p, precision::bf16, peak, cublas_bf16, ok);
  run<Matmul<bf16, ieee_t, 128, 64, 32>, bf16, 128, 64, 32>(p, precision::bf16, peak, cublas_bf16, ok);
  run<Matmul<bf16, ieee_t, 128, 128, 32>, bf16, 128, 128, 32>(p, precision::bf16, peak, cublas_bf16, ok);
  run<Matmul<bf16, ieee_t, 128, 128, 64>, bf16, 128, 128, 64>(p, precision::bf16, peak, cublas_bf16, ok);
#if TILEPUZZLES_HAVE_CUBLAS
  cublasDestroy(handle);
#endif
  std::printf("results %s\n", ok ? "match a double-precision product of the operands as multiplied "
                                   "(error < 1e-5 of sum|products| for fp32, 1e-4 on the tensor cores)"
                                 : "WRONG");
  cudaFree(p.x);
  cudaFree(p.y);
  cudaFree(p.z);
  for (auto* b : {p.x16, p.y16, p.xb, p.yb}) cudaFree(b);
  return ok ? 0 : 1;
}
