// The GPU benchmark module that `tilepuzzles bench` loads (bench/gpu_bench_abi.hpp): the
// solutions of the benchmarked puzzles (bench/catalogue.hpp) swept over sizes that fill the GPU,
// each checked against a double-precision reference at the benchmark's size before it is timed,
// beside a device-to-device copy of 1 GiB timed in the same run (the memory ceiling).
//
// Memory-bound kernels: GB/s count the fewest bytes the problem must move (each input read once,
// each output written once), as bench/torch_triton_baselines.py counts them, so the ratios to
// PyTorch and Triton are ratios of time. Inputs rotate over enough sets (cuda/timing.cuh) that L2
// holds none of what the previous launch touched.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bench/catalogue.hpp"
#include "bench/gpu_bench_session.cuh"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/softmax_fused.hpp"
#include "solutions/vector_add.hpp"

namespace tp::bench_gpu {

// ---- the softmax problems (bench/gpu_bench_session.cuh)

softmax_problem make_softmax_problem(const session& s, int rows, int cols) {
  softmax_problem p{rows, cols, {}, {}, {}, 0};
  const long long n = static_cast<long long>(rows) * cols;
  p.sets = tp::gpu::rotation_sets(8.0 * n, s.l2_bytes);
  p.hx.resize(n);
  for (long long i = 0; i < n; ++i)
    p.hx[i] = static_cast<float>((i * 7919) % 4001) * 0.004f - 8.0f;
  for (int k = 0; k < p.sets; ++k) {
    p.x.emplace_back(n), p.z.emplace_back(n);
    cuda_check(cudaMemcpy(p.x[k].data, p.hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice),
               "copy x");
  }
  return p;
}

double softmax_error(const softmax_problem& p) {
  const long long n = static_cast<long long>(p.rows) * p.cols;
  std::vector<float> hz(n);
  cuda_check(cudaMemcpy(hz.data(), p.z[0].data, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy z");
  for (long long i = 0; i < n; ++i)
    if (!std::isfinite(hz[i])) return INFINITY;
  double worst = 0;
  std::vector<int> sample;
  for (int k = 0; k < 64; ++k) sample.push_back(static_cast<int>(static_cast<long long>(k) * (p.rows - 1) / 63));
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  for (const int r : sample) {
    const float* xr = p.hx.data() + static_cast<long long>(r) * p.cols;
    const float* zr = hz.data() + static_cast<long long>(r) * p.cols;
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < p.cols; ++c) m = std::max(m, static_cast<double>(xr[c]));
    for (int c = 0; c < p.cols; ++c) sum += std::exp(xr[c] - m);
    for (int c = 0; c < p.cols; ++c) {
      const double want = std::exp(xr[c] - m) / sum;
      worst = std::max(worst, std::fabs(zr[c] - want) / want);
    }
  }
  return worst;
}

}  // namespace tp::bench_gpu

namespace {

using namespace tp::bench_gpu;

// ---- the copy ceiling

void copy_ceiling(session& s) {
  const long long n = 1LL << 28;  // 1 GiB of fp32: the baselines' copy
  s.progress("copy " + std::to_string(n));
  device_array<float> x(n), z(n);
  cuda_check(cudaMemset(x.data, 0, sizeof(float) * n), "cudaMemset");
  const auto t = tp::gpu::time_launches(
      [&](int, cudaStream_t stream) {
        cuda_check(cudaMemcpyAsync(z.data, x.data, sizeof(float) * n, cudaMemcpyDeviceToDevice,
                                   stream),
                   "cudaMemcpyAsync");
      },
      s.request->warmup, s.request->runs);
  s.report("copy", "cudaMemcpyAsync", std::to_string(n), "fp32", static_cast<double>(n), "elements",
           t, 8.0 * n, 0, 0, "");
}

// ---- vector-add: z = x + y

template <int B0>
void vector_add(session& s, long long n) {
  using kernel = solutions::VectorAdd<B0>;
  const std::string variant = "B0=" + std::to_string(B0);
  const std::string size = std::to_string(n);
  s.progress("vector-add " + size);
  const double bytes = 12.0 * n;
  const int sets = tp::gpu::rotation_sets(bytes, s.l2_bytes);
  std::vector<float> hx(n), hy(n);
  for (long long i = 0; i < n; ++i) {
    hx[i] = static_cast<float>((i * 7919) % 2003) - 1001.0f;
    hy[i] = static_cast<float>((i * 104729) % 997) * 0.25f;
  }
  std::vector<device_array<float>> x, y, z;
  for (int k = 0; k < sets; ++k) {
    x.emplace_back(n), y.emplace_back(n), z.emplace_back(n);
    cuda_check(cudaMemcpy(x[k].data, hx.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "copy x");
    cuda_check(cudaMemcpy(y[k].data, hy.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "copy y");
  }
  const int programs = static_cast<int>((n + B0 - 1) / B0);
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % sets;
    tp::gpu::program<kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int>
        <<<programs, 32 * kernel::num_warps, 0, stream>>>(kernel{}, {x[k].data}, {y[k].data}, {z[k].data},
                                                static_cast<int>(n));
  };
  // Checked first, every element, on an output filled with NaN.
  cuda_check(cudaMemset(z[0].data, 0xff, sizeof(float) * n), "cudaMemset");
  launch(0, nullptr);
  cuda_check(cudaGetLastError(), "vector-add");
  cuda_check(cudaDeviceSynchronize(), "vector-add");
  std::vector<float> hz(n);
  cuda_check(cudaMemcpy(hz.data(), z[0].data, sizeof(float) * n, cudaMemcpyDeviceToHost), "copy z");
  for (long long i = 0; i < n; ++i)
    if (!(hz[i] == hx[i] + hy[i])) {
      char why[200];
      std::snprintf(why, sizeof why, "WRONG: z[%lld] = %g, expected %g", i, hz[i], hx[i] + hy[i]);
      s.report("vector-add", variant, size, "fp32", static_cast<double>(n), "elements", {}, bytes, 0,
               INFINITY, why);
      return;
    }
  const auto t = tp::gpu::time_launches(launch, s.request->warmup, s.request->runs);
  s.report("vector-add", variant, size, "fp32", static_cast<double>(n), "elements", t, bytes, 0, 0, "");
}

// ---- the softmaxes over x[rows, cols]

// Up to 16384 columns: the solution's 4 warps hold a row of 32768 in 256 registers per thread,
// past the backend's bound of 128 (cuda/tile_storage.cuh), which refuses to compile it. Up to 1024
// columns also with 2 and 4 rows per program (B0), as the tutorial's persistent kernel takes
// several short rows per program.
template <int B1>
void softmax_fused(session& s) {
  auto p = make_softmax_problem(s, 4096, B1);
  softmax<solutions::SoftmaxFused<1, B1>, 1>(s, "softmax-fused", "B0=1 B1=N", p);
  if constexpr (B1 <= 1024) {
    softmax<solutions::SoftmaxFused<2, B1>, 2>(s, "softmax-fused", "B0=2 B1=N", p);
    softmax<solutions::SoftmaxFused<4, B1>, 4>(s, "softmax-fused", "B0=4 B1=N", p);
  }
}

int count_rows(const std::vector<std::string>& chosen) {
  int rows = 1;  // the copy
  const int long_rows = static_cast<int>(long_shapes.size());
  for (const auto& b : chosen) {
    if (b == "vector-add") rows += 9;
    if (b == "softmax-fused") rows += 7 + 2 * 3;
    if (b == "long-softmax-3loop") rows += 2 * long_rows;
    if (b == "long-softmax-2loop") rows += 4 * long_rows;
    if (b == "matmul") rows += matmul_rows();
    rows += warps_variant_rows(b);
  }
  return rows;
}

void run_all(session& s, const std::vector<std::string>& chosen) {
  s.total = count_rows(chosen);
  copy_ceiling(s);
  for (const auto& b : chosen) {
    if (b == "vector-add")
      for (int log2n = 20; log2n <= 28; ++log2n) vector_add<1024>(s, 1LL << log2n);
    if (b == "long-softmax-3loop")
      for (const shape& sh : long_shapes) {
        auto p = make_softmax_problem(s, sh.rows, sh.cols);
        softmax<solutions::LongSoftmax3Loop<1, 2048>, 1>(s, "long-softmax-3loop", "B0=1 B1=2048", p);
        softmax<solutions::LongSoftmax3Loop<1, 4096>, 1>(s, "long-softmax-3loop", "B0=1 B1=4096", p);
      }
    if (b == "long-softmax-2loop") {
      for (const shape& sh : long_shapes) {
        auto p = make_softmax_problem(s, sh.rows, sh.cols);
        softmax<solutions::LongSoftmax2Loop<1, 1024>, 1>(s, "long-softmax-2loop", "B0=1 B1=1024", p);
        softmax<solutions::LongSoftmax2Loop<1, 2048>, 1>(s, "long-softmax-2loop", "B0=1 B1=2048", p);
        softmax<solutions::LongSoftmax2Loop<1, 4096>, 1>(s, "long-softmax-2loop", "B0=1 B1=4096", p);
        softmax<solutions::LongSoftmax2Loop<1, 8192>, 1>(s, "long-softmax-2loop", "B0=1 B1=8192", p);
      }
      warps_variants(s, b);
    }
    if (b == "softmax-fused") {
      softmax_fused<256>(s);
      softmax_fused<512>(s);
      softmax_fused<1024>(s);
      softmax_fused<2048>(s);
      softmax_fused<4096>(s);
      softmax_fused<8192>(s);
      softmax_fused<16384>(s);
      warps_variants(s, b);
    }
    if (b == "matmul") matmul_sweep(s);
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int tilepuzzles_bench_gpu_run(
    int abi_version, const tp_bench_request* request, const tp_bench_host* host, char* error,
    int error_size) {
  auto fail = [&](const std::string& message) {
    std::snprintf(error, error_size, "%s", message.c_str());
    return 1;
  };
  if (abi_version != tp_bench_abi_version)
    return fail("the GPU benchmark module was built for another version of tilepuzzles; rebuild "
                "the project (cmake --build build)");
  std::vector<std::string> chosen;
  for (int i = 0; i < request->benchmark_count; ++i) {
    const auto* entry = tp::bench::find_benchmark(request->benchmarks[i]);
    if (!entry || !entry->pending.empty())
      return fail(std::string("the GPU benchmark module cannot run ") + request->benchmarks[i]);
    chosen.emplace_back(request->benchmarks[i]);
  }
  try {
    cudaDeviceProp props{};
    cuda_check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
    session s{request, host, props.l2CacheSize};
    host->started(host->context, props.name, 8.0 * (1LL << 28));
    run_all(s, chosen);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
