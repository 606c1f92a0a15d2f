// How a GPU kernel is timed (bench/gpu_benchmarks.cu; the method of the device tool's METHOD.md):
// untimed warm-up launches, then many samples, each between two CUDA events, and the median with
// the fastest and slowest. A launch shorter than `min_sample_ms` would be measured mostly as the
// gap between the events and the launch, and between launches: a sample is then a CUDA graph of
// several launches back to back, replayed, and the time is divided by their number, which is how
// bench/torch_triton_baselines.py times its baselines (graph replay leaves the host's launch
// overhead out of both). Each launch gets the index of its input set, so that a caller can rotate
// over enough sets that the L2 cache holds none of the previous launch's data, and the stream to
// launch on.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
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
  bool graph = false;  // the launches of a sample were one CUDA graph's replay
};

inline constexpr double min_sample_ms = 0.1;

// Input sets, together at least four times the L2 cache, for a problem of `bytes_per_set`.
inline int rotation_sets(double bytes_per_set, int l2_bytes) {
  const double needed = 4.0 * l2_bytes / bytes_per_set;
  return std::max(1, static_cast<int>(needed + 0.999));
}

// Times launch(i, stream) for i = 0, 1, ...: `warmup` untimed, then `runs` samples of one launch,
// or of one replay of a graph of `launches_per_sample` launches where one takes under
// `min_sample_ms`.
template <class Launch>
timing time_launches(Launch&& launch, int warmup, int runs) {
  cudaStream_t stream = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  struct cleanup {
    cudaStream_t& stream;
    cudaEvent_t &start, &stop;
    cudaGraph_t& graph;
    cudaGraphExec_t& exec;
    ~cleanup() {
      if (exec) cudaGraphExecDestroy(exec);
      if (graph) cudaGraphDestroy(graph);
      if (start) cudaEventDestroy(start);
      if (stop) cudaEventDestroy(stop);
      cudaStreamDestroy(stream);
    }
  } guard{stream, start, stop, graph, exec};
  int i = 0;
  for (int w = 0; w < warmup; ++w) launch(i++, stream);
  cuda_check(cudaGetLastError(), "the warm-up launches");
  cuda_check(cudaStreamSynchronize(stream), "the warm-up launches");
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  auto sample = [&](int launches) {
    cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
    if (exec) cuda_check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    else
      for (int l = 0; l < launches; ++l) launch(i++, stream);
    cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
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
  if (batch > 1) {
    // What cannot be captured (a library call that allocates, say) is timed on the stream.
    bool captured = false;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
      try {
        for (int l = 0; l < batch; ++l) launch(i++, stream);
      } catch (const std::exception&) {
      }
      captured = cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph &&
                 cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    }
    if (!captured) {
      (void)cudaGetLastError();
      if (exec) cudaGraphExecDestroy(exec);
      if (graph) cudaGraphDestroy(graph);
      exec = nullptr, graph = nullptr;
    } else {
      cuda_check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");  // the graph's own warm-up
      cuda_check(cudaStreamSynchronize(stream), "the graph's warm-up");
    }
  }
  ms.clear();
  for (int r = 0; r < runs; ++r) ms.push_back(sample(batch));
  cuda_check(cudaGetLastError(), "the timed launches");
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), runs, batch, exec != nullptr};
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
