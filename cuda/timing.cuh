// How a GPU kernel is timed (bench/gpu_benchmarks.cu; the method of the device tool's METHOD.md):
// untimed warm-up launches, then many launches each between two CUDA events, and the median with
// the fastest and slowest. Each launch gets the index of its input set, so that a caller can
// rotate over enough sets that the L2 cache holds none of the previous launch's data.
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
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

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
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    cuda_check(cudaEventRecord(start), "cudaEventRecord");
    launch(i++);
    cuda_check(cudaEventRecord(stop), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "a timed launch");
    float t = 0;
    cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cuda_check(cudaGetLastError(), "the timed launches");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), runs};
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
