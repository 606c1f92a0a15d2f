// The softmax solutions on the GPU against the copy bandwidth measured in the same run.
//
//   ./build/tilepuzzles_bench_gpu_softmax [rows, default 4096] [columns, default 16384]
//
// The fused softmax runs on the same number of elements as rows of 4096 (one row per tile).
//
// Memory-bound kernels, so the figure of merit is bytes moved per second: the 2-loop softmax reads
// each element twice and writes it once (12 bytes), the 3-loop one reads it three times (16), the
// fused one once (8, one row per tile). Each figure is divided by the bandwidth of a
// device-to-device copy (8 bytes per element) timed in the same run. Inputs rotate over 4 sets so
// that L2 (50 MB on an H100) holds none of them; each kernel is checked against a double-precision
// softmax on the host (every row of a sample) before it is timed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/softmax_fused.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class F>
double median_ms(F&& f, int warmup = 3, int runs = 21) {
  for (int i = 0; i < warmup; ++i) f(i);
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    f(i);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  check(cudaGetLastError(), "the timed launches");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

constexpr int sets = 4;

struct problem {
  int rows, cols;
  std::vector<float*> x, z;  // `sets` copies each
  std::vector<float> host_x;
};

template <class Kernel, int B0>
void launch(const problem& p, int set) {
  tp::gpu::program<Kernel, tl::ptr<const float>, tl::ptr<float>, int, int>
      <<<(p.rows + B0 - 1) / B0, 32 * Kernel::num_warps>>>(Kernel{}, {p.x[set]}, {p.z[set]}, p.rows,
                                                          p.cols);
}

// Every row of a sample of rows against a double-precision softmax; the largest relative error.
template <class Kernel, int B0>
double max_error(const problem& p) {
  check(cudaMemset(p.z[0], 0xff, sizeof(float) * p.rows * p.cols), "cudaMemset");  // NaN
  launch<Kernel, B0>(p, 0);
  check(cudaDeviceSynchronize(), "softmax");
  double worst = 0;
  std::vector<float> row(p.cols);
  for (int r = 0; r < p.rows; r += p.rows / 16 + 1) {
    check(cudaMemcpy(row.data(), p.z[0] + static_cast<long long>(r) * p.cols,
                     sizeof(float) * p.cols, cudaMemcpyDeviceToHost),
          "copy back");
    const float* xr = p.host_x.data() + static_cast<long long>(r) * p.cols;
    double m = -INFINITY, s = 0;
    for (int c = 0; c < p.cols; ++c) m = std::max(m, static_cast<double>(xr[c]));
    for (int c = 0; c < p.cols; ++c) s += std::exp(xr[c] - m);
    for (int c = 0; c < p.cols; ++c) {
      const double want = std::exp(xr[c] - m) / s;
      const double err = std::fabs(row[c] - want) / want;
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  }
  return worst;
}

template <class Kernel, int B0>
void run(const char* label, const problem& p, double bytes_per_element, double copy_gbs,
         bool& ok) {
  const double err = max_error<Kernel, B0>(p);
  const double ms = median_ms([&](int i) { launch<Kernel, B0>(p, i % sets); });
  const double gbs = bytes_per_element * p.rows * p.cols / ms / 1e6;
  std::printf("%-44s %8.3f ms %8.1f GB/s  %.2f x copy   max rel. error %.1e\n", label, ms, gbs,
              gbs / copy_gbs, err);
  ok = ok && err < 1e-5;
}

}  // namespace

int main(int argc, char** argv) {
  problem p;
  p.rows = argc > 1 ? std::atoi(argv[1]) : 4096;
  p.cols = argc > 2 ? std::atoi(argv[2]) : 16384;
  const long long n = static_cast<long long>(p.rows) * p.cols;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties (is there a GPU?)");
  std::printf("GPU: %s, %d SMs; x[%d, %d] (%.2f GiB), %d input sets\n", props.name,
              props.multiProcessorCount, p.rows, p.cols, n * 4.0 / (1 << 30), sets);

  p.host_x.resize(n);
  for (long long i = 0; i < n; ++i)
    p.host_x[i] = static_cast<float>((i * 7919) % 4001) * 0.004f - 8.0f;
  p.x.resize(sets);
  p.z.resize(sets);
  for (int s = 0; s < sets; ++s) {
    check(cudaMalloc(&p.x[s], sizeof(float) * n), "cudaMalloc");
    check(cudaMalloc(&p.z[s], sizeof(float) * n), "cudaMalloc");
    check(cudaMemcpy(p.x[s], p.host_x.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "copy");
  }
  const double copy_ms = median_ms([&](int i) {
    check(cudaMemcpyAsync(p.z[i % sets], p.x[i % sets], sizeof(float) * n,
                          cudaMemcpyDeviceToDevice),
          "copy");
  });
  const double copy_gbs = 8.0 * n / copy_ms / 1e6;
  std::printf("%-44s %8.3f ms %8.1f GB/s  (baseline)\n", "device-to-device copy", copy_ms,
              copy_gbs);

  bool ok = true;
  using two_1024 = solutions::LongSoftmax2Loop<1, 1024>;
  using two_2048 = solutions::LongSoftmax2Loop<1, 2048>;
  using two_4x1024 = solutions::LongSoftmax2Loop<4, 1024>;
  run<two_1024, 1>("2-loop softmax, B0 = 1, B1 = 1024 (12 B/elem)", p, 12, copy_gbs, ok);
  run<two_2048, 1>("2-loop softmax, B0 = 1, B1 = 2048", p, 12, copy_gbs, ok);
  run<two_4x1024, 4>("2-loop softmax, B0 = 4, B1 = 1024", p, 12, copy_gbs, ok);
  run<solutions::LongSoftmax3Loop<1, 2048>, 1>("3-loop softmax, B0 = 1, B1 = 2048 (16 B/elem)", p,
                                              16, copy_gbs, ok);
  problem fused = p;
  fused.cols = 4096;
  fused.rows = static_cast<int>(n / fused.cols);
  run<solutions::SoftmaxFused<1, 4096>, 1>("fused softmax, rows of 4096, B1 = 4096 (8 B/elem)",
                                           fused, 8, copy_gbs, ok);
  std::printf("results %s\n", ok ? "match a double-precision softmax (rel. error < 1e-5)" : "WRONG");
  for (int s = 0; s < sets; ++s) {
    cudaFree(p.x[s]);
    cudaFree(p.z[s]);
  }
  return ok ? 0 : 1;
}
