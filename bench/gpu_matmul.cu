// The matmul solution (puzzle 14, fp32 operands: tl::dot's FFMA lowering, cuda/dot.cuh) on the
// GPU, for several block sizes, against the device's fp32 FFMA peak:
//
//   ./build/tilepuzzles_bench_gpu_matmul [size, default 4096]
//
// z = x @ y for square size x size matrices (one batch). Each block size is checked first against
// a double-precision product on the host (a sample of 256 elements, relative to the sum of
// |x_ik * y_kj|, the scale of the summation-order error), then timed (median of 11 after 2
// warm-ups). The cuBLAS fp32 baseline of the same machine is measured by bench/gpu_session.sh
// with PyTorch (TF32 off), in the same session.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "solutions/matmul.hpp"

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
  float *x, *y, *z;
  std::vector<float> hx, hy;
};

template <int B0, int B1, int B_MID>
void launch(const problem& p) {
  using K = solutions::Matmul<B0, B1, B_MID>;
  const dim3 grid((p.n + B0 - 1) / B0, (p.n + B1 - 1) / B1, 1);
  tp::gpu::program<K, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int, int, int, int>
      <<<grid, 32 * K::num_warps>>>(K{}, {p.x}, {p.y}, {p.z}, p.n, p.n, 1, p.n);
}

template <int B0, int B1, int B_MID>
void run(const problem& p, double peak_tflops, bool& ok) {
  check(cudaMemset(p.z, 0xff, sizeof(float) * p.n * p.n), "cudaMemset");  // NaN
  launch<B0, B1, B_MID>(p);
  check(cudaDeviceSynchronize(), "matmul");
  std::vector<float> z(static_cast<std::size_t>(p.n) * p.n);
  check(cudaMemcpy(z.data(), p.z, sizeof(float) * z.size(), cudaMemcpyDeviceToHost), "copy back");
  double worst = 0;
  for (int s = 0; s < 256; ++s) {
    const long long i = (s * 7919LL) % p.n, j = (s * 104729LL) % p.n;
    double want = 0, scale = 0;
    for (int k = 0; k < p.n; ++k) {
      const double t = static_cast<double>(p.hx[i * p.n + k]) * p.hy[static_cast<long long>(k) * p.n + j];
      want += t;
      scale += std::fabs(t);
    }
    const double err = std::fabs(z[i * p.n + j] - want) / scale;
    worst = std::isnan(err) ? INFINITY : std::max(worst, err);
  }
  const double ms = median_ms([&] { launch<B0, B1, B_MID>(p); });
  const double tflops = 2.0 * p.n * p.n * static_cast<double>(p.n) / ms / 1e9;
  std::printf("tl matmul, B0 = %3d, B1 = %3d, B_MID = %2d  %9.3f ms %7.2f TFLOP/s  %.2f x FFMA peak"
              "   max error / sum|products| %.1e\n",
              B0, B1, B_MID, ms, tflops, tflops / peak_tflops, worst);
  ok = ok && worst < 1e-5;
}

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
  bool ok = true;
  run<32, 32, 32>(p, peak, ok);
  run<64, 64, 16>(p, peak, ok);
  run<64, 64, 32>(p, peak, ok);
  run<128, 64, 16>(p, peak, ok);
  run<64, 128, 16>(p, peak, ok);
  std::printf("results %s\n", ok ? "match a double-precision product (error < 1e-5 of sum|products|)"
                                 : "WRONG");
  cudaFree(p.x);
  cudaFree(p.y);
  cudaFree(p.z);
  return ok ? 0 : 1;
}
