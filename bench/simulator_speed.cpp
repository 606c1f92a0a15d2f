// How fast the simulator runs a real kernel with every check on: the 2-loop softmax over
// x[64, 4096] with B1 = 128, the kernel Triton's interpreter takes 10.9 s on.
//
//   ./build/tilepuzzles_bench_simulator
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "checker/inputs.hpp"
#include "checker/sim_launch.hpp"
#include "solutions/long_softmax_2loop.hpp"

namespace {

constexpr double triton_interpreter_seconds = 10.9;

template <class Kernel>
void measure(const char* label, int N0, int T, int B0) {
  std::vector<tp::tensor> tensors(2);
  tensors[0] = {"x", {N0, T}, std::vector<float>(static_cast<std::size_t>(N0) * T), false};
  tensors[1] = {"z", {N0, T}, std::vector<float>(static_cast<std::size_t>(N0) * T), true};
  tp::rng random(1);
  tp::fill_signed(tensors[0].values, random, 30.0);
  tp::launch_request request;
  request.grid = {(N0 + B0 - 1) / B0, 1, 1};
  request.tensors = &tensors;
  request.sizes = {N0, T};

  std::vector<double> ms;
  for (int run = 0; run < 11; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const auto out = tp::sim_launch<Kernel>(request, {});
    const auto stop = std::chrono::steady_clock::now();
    if (out.result.error) {
      std::printf("%s: the kernel failed: %s\n", label, out.result.error->message.c_str());
      return;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  double worst_row = 0;  // every row of a softmax sums to 1
  for (int r = 0; r < N0; ++r) {
    double s = 0;
    for (int c = 0; c < T; ++c) s += tensors[1].values[static_cast<std::size_t>(r) * T + c];
    worst_row = std::max(worst_row, std::abs(s - 1.0));
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("%-36s median %7.2f ms (min %7.2f, max %7.2f) over %zu runs; %6.0fx faster than "
              "Triton's interpreter (10.9 s); worst |row sum - 1| = %.1e\n",
              label, median, ms.front(), ms.back(), ms.size(),
              triton_interpreter_seconds * 1000.0 / median, worst_row);
}

}  // namespace

int main() {
  std::printf("2-loop softmax, x[64, 4096], every check on (bounds, poison, races, counters)\n");
  measure<solutions::LongSoftmax2Loop<1, 128>>("B0 = 1, B1 = 128 (64 programs)", 64, 4096, 1);
  measure<solutions::LongSoftmax2Loop<4, 128>>("B0 = 4, B1 = 128 (16 programs)", 64, 4096, 4);
  return 0;
}
