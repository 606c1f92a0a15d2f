// A puzzle's solution at a benchmark's size, through the puzzle's own spec: the tilepuzzles
// program makes the case (the inputs `check` would fill, at a size no case of the checker has)
// and judges one launch's outputs against the spec's reference and tolerance before the kernel is
// timed (tp_bench_host's make_case and judge). So a puzzle needs no benchmark code of its own:
// its kernels in the table (bench/gpu_bench_kernels.cu) and its sizes (bench/gpu_benchmarks.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/gpu_bench_session.cuh"
#include "checker/kernel_signature.hpp"
#include "checker/gpu_launch.cuh"

namespace tp::bench_gpu {

// "4096x1024": the sizes in the spec's order.
inline std::string sizes_label(const std::vector<int>& sizes) {
  std::string label;
  for (const int n : sizes) label.append(label.empty() ? "" : "x").append(std::to_string(n));
  return label;
}

template <class Kernel>
void puzzle(session& s, const std::string& benchmark, const std::vector<int>& sizes,
            const std::vector<int>& blocks, const std::string& variant) {
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  const std::string size = sizes_label(sizes);
  s.progress(benchmark + " " + size + " " + variant);
  const char* problem = nullptr;
  const tp_bench_case* c = s.host->make_case(s.host->context, benchmark.c_str(), sizes.data(),
                                             static_cast<int>(sizes.size()), blocks.data(),
                                             static_cast<int>(blocks.size()), &problem);
  if (!c) throw std::runtime_error(benchmark + " " + size + ": " + (problem ? problem : "no case"));
  double bytes = 0;
  for (int t = 0; t < c->tensor_count; ++t) bytes += static_cast<double>(c->tensors[t].byte_count);
  const int sets = tp::gpu::rotation_sets(bytes, s.l2_bytes);
  std::vector<std::vector<tp::gpu::device_buffer>> buffers(sets);
  for (auto& set : buffers)
    for (int t = 0; t < c->tensor_count; ++t) {
      const tp_bench_tensor& tensor = c->tensors[t];
      set.emplace_back(static_cast<std::size_t>(tensor.byte_count));
      cuda_check(set.back().error(), "cudaMalloc");
      cuda_check(cudaMemcpy(set.back().get(), tensor.bytes, tensor.byte_count, cudaMemcpyHostToDevice),
                 "copy an input");
    }
  const dim3 grid(c->grid[0], c->grid[1], c->grid[2]);
  if (auto missing = tl::cuda::provide_tensor_maps(1LL * grid.x * grid.y * grid.z); !missing.empty())
    throw std::runtime_error(missing);
  auto launch = [&](int i, cudaStream_t stream) {
    const auto& set = buffers[i % sets];
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      constexpr auto function = tp::gpu::program<Kernel, std::tuple_element_t<I, params>...>;
      function<<<grid, 32 * Kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(
          Kernel{}, tp::gpu::detail::kernel_argument<std::tuple_element_t<I, params>>(I, set, sizes)...);
    }(std::make_index_sequence<std::tuple_size_v<params>>{});
  };
  // Checked first, on outputs that go in poisoned, by the checker's comparison.
  launch(0, nullptr);
  cuda_check(cudaGetLastError(), benchmark.c_str());
  cuda_check(cudaDeviceSynchronize(), benchmark.c_str());
  std::vector<std::vector<unsigned char>> outputs(c->tensor_count);
  std::vector<const void*> output_bytes(c->tensor_count, nullptr);
  for (int t = 0; t < c->tensor_count; ++t) {
    if (!c->tensors[t].output) continue;
    outputs[t].resize(static_cast<std::size_t>(c->tensors[t].byte_count));
    cuda_check(cudaMemcpy(outputs[t].data(), buffers[0][t].get(), outputs[t].size(), cudaMemcpyDeviceToHost),
               "copy an output");
    output_bytes[t] = outputs[t].data();
  }
  const double error = s.host->judge(s.host->context, output_bytes.data(), &problem);
  const double columns = sizes.back();
  if (problem) {
    const std::string first_line = std::string(problem).substr(0, std::string(problem).find('\n'));
    s.report(benchmark.c_str(), variant, size, "fp32", columns, "columns", {}, bytes, 0, error,
             "WRONG: " + first_line);
    return;
  }
  const auto t = tp::gpu::time_launches(launch, s.request->warmup, s.request->runs);
  s.report(benchmark.c_str(), variant, size, "fp32", columns, "columns", t, bytes, 0, error, "");
}

}  // namespace tp::bench_gpu
