// A copy of an [M, N] float tensor, block by block, through tensor descriptors (each load one TMA
// copy on sm_90a, cuda/descriptor.cuh) and through plain masked loads, both stored plainly: each
// checked element for element, then timed (3 launches, then the median of 20), against
// cudaMemcpy of the same bytes in the same run. Not part of the build: bench/probes/tma_session.sh
// builds and runs it on the GPU machine:
//
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -I . \
//     -I /usr/include/eigen3 -o /tmp/probe bench/probes/descriptor_probe.cu
#include <algorithm>
#include <cstdio>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "tile/tl.hpp"

constexpr int BM = 64, BN = 64;

template <bool ThroughDescriptor>
struct Copy {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int M, int N) const {
    const int m = tl::program_id(0) * BM, n = tl::program_id(1) * BN;
    auto rows = m + tl::arange<BM>();
    auto cols = n + tl::arange<BN>();
    auto offsets = rows.col() * N + cols.row();
    auto inside = (rows < M).col() & (cols < N).row();
    if constexpr (ThroughDescriptor) {
      auto xd = tl::make_tensor_descriptor(x, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
      tl::store(z + offsets, xd.load({m, n}), inside);
    } else {
      tl::store(z + offsets, tl::load(x + offsets, inside, 0.0f), inside);
    }
  }
};

template <bool ThroughDescriptor>
float run(const float* x, float* z, int M, int N, const std::vector<float>& want) {
  using K = Copy<ThroughDescriptor>;
  constexpr auto function = tp::gpu::program<K, tl::ptr<const float>, tl::ptr<float>, int, int>;
  const dim3 grid((M + BM - 1) / BM, (N + BN - 1) / BN);
  if (auto problem = tl::cuda::provide_tensor_maps(1LL * grid.x * grid.y); !problem.empty()) {
    std::printf("%s\n", problem.c_str());
    return -1;
  }
  const std::size_t shared = tp::gpu::shared_arena_bytes<function>();
  auto launch = [&] { function<<<grid, 32 * K::num_warps, shared>>>(K{}, {x}, {z}, M, N); };
  cudaMemset(z, 0xff, sizeof(float) * M * N);
  launch();
  std::vector<float> got(std::size_t(M) * N);
  cudaMemcpy(got.data(), z, sizeof(float) * got.size(), cudaMemcpyDeviceToHost);
  long long wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != want[i];
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t s, e;
  cudaEventCreate(&s);
  cudaEventCreate(&e);
  std::vector<float> ms;
  for (int r = 0; r < 20; ++r) {
    cudaEventRecord(s);
    launch();
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float t;
    cudaEventElapsedTime(&t, s, e);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  if (auto err = cudaGetLastError()) std::printf("CUDA error: %s\n", cudaGetErrorString(err));
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, function);
  std::printf("%-24s %lld wrong, %.3f ms, %.0f GB/s (%d registers)\n",
              ThroughDescriptor ? "through a descriptor:" : "plain masked load:", wrong, ms[10],
              2.0 * sizeof(float) * M * N / (ms[10] * 1e6), a.numRegs);
  return ms[10];
}

int main() {
  for (auto [M, N] : {std::pair{8192, 8192}, std::pair{8190, 8188}}) {
    std::vector<float> host(std::size_t(M) * N);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 1000003);
    float *x, *z;
    cudaMalloc(&x, sizeof(float) * host.size());
    cudaMalloc(&z, sizeof(float) * host.size());
    cudaMemcpy(x, host.data(), sizeof(float) * host.size(), cudaMemcpyHostToDevice);
    std::printf("[%d, %d] floats, blocks [%d, %d], 4 warps\n", M, N, BM, BN);
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    std::vector<float> ms;
    for (int r = 0; r < 23; ++r) {
      cudaEventRecord(s);
      cudaMemcpy(z, x, sizeof(float) * host.size(), cudaMemcpyDeviceToDevice);
      cudaEventRecord(e);
      cudaEventSynchronize(e);
      float t;
      cudaEventElapsedTime(&t, s, e);
      if (r >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-24s %.3f ms, %.0f GB/s\n", "cudaMemcpy:", ms[10], 2.0 * sizeof(float) * M * N / (ms[10] * 1e6));
    run<false>(x, z, M, N, host);
    run<true>(x, z, M, N, host);
    cudaFree(x);
    cudaFree(z);
  }
}
