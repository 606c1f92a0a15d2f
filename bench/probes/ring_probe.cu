// The ring test kernels of tests/kernels/ring.hpp (descriptor loads in pipelined ranges: rings the
// copy engine fills, read in place by wgmma or mma.sync) on the GPU, each pipelined computation
// against the same loop with a plain range, bit for bit (whole-number operands: exact sums). (The
// GPU tests compare both with the simulator; this is a few seconds, and the program compute-sanitizer's
// tools run on, before the GPU tests are built (bench/probes/matmul_fast_probe.sh). One binary per
// warp count (tl is built for one count per unit):
//
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -I . \
//     -I /usr/include/eigen3 -DTL_NUM_WARPS=4 -o /tmp/ring4 bench/probes/ring_probe.cu
#include <bit>
#include <cstdio>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "tests/kernels/ring.hpp"

namespace {

template <class K>
int run(const char* name) {
  std::vector<tp::tensor> tensors;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-16, 16);
  std::vector<float> x(K::tile), y(K::tile);
  for (auto& v : x) v = static_cast<float>(d(rng));
  for (auto& v : y) v = static_cast<float>(d(rng));
  tensors.push_back({"x", {K::tile}, x, false});
  tensors.push_back({"y", {K::tile}, y, false});
  tensors.push_back({"z", {K::outputs}, std::vector<float>(K::outputs), true});
  tensors[0].dtype = tensors[1].dtype = tp::dtype_of<typename K::operand>();
  tp::launch_request request;
  request.tensors = &tensors;
  request.sizes = {K::kdim};
  const std::string error = tp::gpu::launch<K>(request);
  if (!error.empty()) {
    std::printf("%-56s FAILED: %s\n", name, error.c_str());
    return 1;
  }
  const auto& z = tensors[2].values;
  int wrong = 0;
  for (int i = 0; i < K::pipelined_half; ++i)
    if (std::bit_cast<std::uint32_t>(z[i]) != std::bit_cast<std::uint32_t>(z[i + K::pipelined_half])) {
      if (wrong < 4)
        std::printf("  z[%d]: %g pipelined, %g plain\n", i, z[i], z[i + K::pipelined_half]);
      ++wrong;
    }
  std::printf("%-56s %s (%d of %d elements differ)\n", name, wrong == 0 ? "ok" : "WRONG", wrong,
              K::pipelined_half);
  return wrong != 0;
}

}  // namespace

int main() {
  int bad = 0;
#if TL_NUM_WARPS == 4
  bad += run<test_kernels::DescriptorRing<tl::float16, 3, 64, 64, 32, 4>>("ring float16<64, 64, 32>, 3 stages, 4 warps");
  bad += run<test_kernels::DescriptorRing<tl::bfloat16, 2, 64, 32, 16, 4>>("ring bfloat16<64, 32, 16>, 2 stages, 4 warps");
  bad += run<test_kernels::RingMatmul<tl::float16, 4, 64, 128, 64, 4>>("ring matmul float16<64, 128, 64>, 4 stages, 4 warps");
#elif TL_NUM_WARPS == 1
  bad += run<test_kernels::DescriptorRing<tl::float16, 4, 32, 32, 16, 1>>("ring float16<32, 32, 16>, 4 stages, 1 warp");
#elif TL_NUM_WARPS == 8
  bad += run<test_kernels::DescriptorRing<tl::bfloat16, 3, 128, 64, 64, 8>>("ring bfloat16<128, 64, 64>, 3 stages, 8 warps");
  bad += run<test_kernels::RingMatmul<tl::float16, 2, 128, 256, 64, 8>>("ring matmul float16<128, 256, 64>, 2 stages, 8 warps");
#endif
  return bad;
}
