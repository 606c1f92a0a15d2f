// How a GPU kernel is timed (bench/gpu_benchmarks.cu; the method of the device tool's METHOD.md):
// untimed warm-up launches, then many samples, each between two CUDA events, and the median with
// the fastest and slowest. A launch shorter than `min_sample_ms` would be measured mostly as the
// gap between the events and the launch, so a sample is then several launches back to back and
// the time is divided by their number. Each launch gets the index of its input set, so that a
// caller can rotate over enough sets that the L2 cache holds none of the previous launch's data.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace tp::gpu {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
}

struct timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;  // per launch
  int runs = 0;                                  // samples
  int launches_per_sample = 1;
};

inline constexpr double min_sample_ms = 0.1;

// Input sets, together at least four times the L2 cache, for a problem of `bytes_per_set`.
inline int rotation_sets(double bytes_per_set, int l2_bytes) {
  const double needed = 4.0 * l2_bytes / bytes_per_set;
  return std::max(1, static_cast<int>(needed + 0.999));
}

// Times launch(i) for i = 0, 1, ...: `warmup` untimed, then `runs` timed one by one.
template <class Launch>
timing time_launches(Launch&& launch, int warmup, int runs) {
  int i = 0;
  for (int w = 0; w < warmup; ++w) launch(i++);
  cuda_check(cudaGetLastError(), "the warm-up launches");
  cuda_check(cudaDeviceSynchronize(), "the warm-up launches");
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  auto sample = [&](int launches) {
    cuda_check(cudaEventRecord(start), "cudaEventRecord");
    for (int l = 0; l < launches; ++l) launch(i++);
    cuda_check(cudaEventRecord(stop), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "a timed launch");
    float t = 0;
    cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    return static_cast<double>(t) / launches;
  };
  std::vector<double> ms;
  for (int r = 0; r < 5; ++r) ms.push_back(sample(1));
  std::sort(ms.begin(), ms.end());
  const int batch =
      ms[2] >= min_sample_ms ? 1 : std::min(1000, static_cast<int>(min_sample_ms / ms[2]) + 1);
  ms.clear();
  for (int r = 0; r < runs; ++r) ms.push_back(sample(batch));
  cuda_check(cudaGetLastError(), "the timed launches");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), runs, batch};
}

// A device allocation freed with its owner.
template <class T>
struct device_array {
  T* data = nullptr;
  explicit device_array(long long n) {
    cuda_check(cudaMalloc(&data, sizeof(T) * n), "cudaMalloc");
  }
  device_array(device_array&& o) noexcept : data(o.data) { o.data = nullptr; }
  device_array(const device_array&) = delete;
  ~device_array() {
    if (data) cudaFree(data);
  }
};

}  // namespace tp::gpu
