// The vector-add solution on the GPU against the copy bandwidth measured in the same run.
//
//   ./build/tilepuzzles_bench_gpu [log2 of N, default 28]
//
// Vector add moves 12 bytes per element (two reads, one write); a device-to-device copy moves 8
// (one read, one write). Both are memory-bound, so the figure of merit is bytes per second, and
// the ratio of the kernel's to the copy's is how close it comes to what the memory allows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "solutions/vector_add.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Median milliseconds of `runs` timed calls after `warmup` untimed ones, with CUDA events.
template <class F>
double median_ms(F&& f, int warmup = 5, int runs = 50) {
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
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct buffers {
  float *x, *y, *z;
  int n;
};

template <int B0>
double time_vector_add(const buffers& b) {
  using kernel = solutions::VectorAdd<B0>;
  const int programs = (b.n + B0 - 1) / B0;
  return median_ms([&] {
    tp::gpu::program<kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int>
        <<<programs, 32 * kernel::num_warps>>>(kernel{}, {b.x}, {b.y}, {b.z}, b.n);
  });
}

// Runs once more on fresh NaN-filled output and checks every element on the host.
template <int B0>
bool verify(const buffers& b, const std::vector<float>& hx, const std::vector<float>& hy) {
  using kernel = solutions::VectorAdd<B0>;
  check(cudaMemset(b.z, 0xff, sizeof(float) * b.n), "cudaMemset");  // NaN
  tp::gpu::program<kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int>
      <<<(b.n + B0 - 1) / B0, 32 * kernel::num_warps>>>(kernel{}, {b.x}, {b.y}, {b.z}, b.n);
  check(cudaDeviceSynchronize(), "vector add");
  std::vector<float> hz(b.n);
  check(cudaMemcpy(hz.data(), b.z, sizeof(float) * b.n, cudaMemcpyDeviceToHost), "copy back");
  for (int i = 0; i < b.n; ++i)
    if (hz[i] != hx[i] + hy[i]) {
      std::printf("B0 = %d: WRONG at %d: %g, expected %g\n", B0, i, hz[i], hx[i] + hy[i]);
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  // Not a multiple of any block: the last program runs masked.
  const int n = (1 << log2n) - 3;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties (is there a GPU?)");
  std::printf("GPU: %s, %d SMs; N = %d floats (%.2f GiB per vector)\n", props.name,
              props.multiProcessorCount, n, n * 4.0 / (1 << 30));

  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>((i * 7919) % 2003) - 1001.0f;
    hy[i] = static_cast<float>((i * 104729) % 997) * 0.25f;
  }
  buffers b{nullptr, nullptr, nullptr, n};
  check(cudaMalloc(&b.x, sizeof(float) * n), "cudaMalloc");
  check(cudaMalloc(&b.y, sizeof(float) * n), "cudaMalloc");
  check(cudaMalloc(&b.z, sizeof(float) * n), "cudaMalloc");
  check(cudaMemcpy(b.x, hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(b.y, hy.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "copy y");

  const double copy_ms = median_ms(
      [&] { check(cudaMemcpyAsync(b.z, b.x, sizeof(float) * n, cudaMemcpyDeviceToDevice), "copy"); });
  const double copy_gbs = 8.0 * n / copy_ms / 1e6;
  std::printf("%-34s %8.3f ms %8.1f GB/s  (baseline)\n", "device-to-device copy", copy_ms, copy_gbs);

  bool ok = true;
  auto report = [&](const char* label, double ms) {
    const double gbs = 12.0 * n / ms / 1e6;
    std::printf("%-34s %8.3f ms %8.1f GB/s  %.2f x copy bandwidth\n", label, ms, gbs,
                gbs / copy_gbs);
  };
  ok = verify<256>(b, hx, hy) && ok;
  report("tl vector-add, B0 = 256", time_vector_add<256>(b));
  ok = verify<1024>(b, hx, hy) && ok;
  report("tl vector-add, B0 = 1024", time_vector_add<1024>(b));
  ok = verify<2048>(b, hx, hy) && ok;
  report("tl vector-add, B0 = 2048", time_vector_add<2048>(b));
  ok = verify<4096>(b, hx, hy) && ok;
  report("tl vector-add, B0 = 4096", time_vector_add<4096>(b));
  std::printf("results %s\n", ok ? "match x + y exactly" : "WRONG");
  cudaFree(b.x);
  cudaFree(b.y);
  cudaFree(b.z);
  return ok ? 0 : 1;
}
