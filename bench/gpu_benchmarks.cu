// The GPU benchmark module that `tilepuzzles bench` loads (checker/bench_module_abi.hpp): the
// solutions of the benchmarked puzzles (checker/bench_catalogue.hpp) swept over sizes that fill
// the GPU, each checked against a double-precision reference at the benchmark's size before it is
// timed, beside a device-to-device copy of 1 GiB timed in the same run (the memory ceiling).
//
// The solutions' kernels are compiled in bench/gpu_bench_kernels.cu, once per warp count, and found
// here in the module's kernel table (bench/gpu_bench_session.cuh); vector-add's 4 warps are this
// unit's.
//
// Memory-bound kernels: GB/s count the fewest bytes the problem must move (each input read once,
// each output written once), as bench/torch_triton_baselines.py counts them, so the ratios to
// PyTorch and Triton are ratios of time. Inputs rotate over enough sets (cuda/timing.cuh) that L2
// holds none of what the previous launch touched.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checker/bench_catalogue.hpp"
#include "bench/gpu_bench_session.cuh"
#include "cuda/half_bits.hpp"
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

// ---- attention

namespace {
unsigned short half_bits(float f) { return tl::half_bits::from_float(f); }
double half_value(unsigned short bits) { return tl::half_bits::to_float(bits); }
}  // namespace

std::string attention_problem::size() const {
  return std::to_string(batch) + "x" + std::to_string(heads) + "x" + std::to_string(tokens) + "x" +
         std::to_string(head_dim);
}

double attention_problem::flops() const {
  return 4.0 * batch * heads * tokens * static_cast<double>(tokens) * head_dim / (causal ? 2 : 1);
}

attention_problem make_attention_problem(const session& s, int batch, int heads, int tokens,
                                         int head_dim, bool causal) {
  attention_problem p{batch, heads, tokens, head_dim, causal, {}, {}, {}, {}, {}, {}, {}, 0};
  const long long n = 1LL * batch * heads * tokens * head_dim;
  p.sets = tp::gpu::rotation_sets(8.0 * n, s.l2_bytes);
  // Uniform in [-1, 1), from a fixed 64-bit linear congruential sequence per tensor.
  auto fill = [n](std::vector<unsigned short>& h, unsigned long long state) {
    h.resize(n);
    for (long long i = 0; i < n; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      h[i] = half_bits(static_cast<float>(state >> 40) * 0x1p-23f - 1.0f);
    }
  };
  fill(p.hq, 1), fill(p.hk, 2), fill(p.hv, 3);
  for (int k = 0; k < p.sets; ++k) {
    p.q.emplace_back(n), p.k.emplace_back(n), p.v.emplace_back(n), p.o.emplace_back(n);
    cuda_check(cudaMemcpy(p.q[k].data, p.hq.data(), 2 * n, cudaMemcpyHostToDevice), "copy q");
    cuda_check(cudaMemcpy(p.k[k].data, p.hk.data(), 2 * n, cudaMemcpyHostToDevice), "copy k");
    cuda_check(cudaMemcpy(p.v[k].data, p.hv.data(), 2 * n, cudaMemcpyHostToDevice), "copy v");
  }
  return p;
}

double attention_error(const attention_problem& p) {
  const long long n = 1LL * p.batch * p.heads * p.tokens * p.head_dim;
  std::vector<unsigned short> ho(n);
  cuda_check(cudaMemcpy(ho.data(), p.o[0].data, 2 * n, cudaMemcpyDeviceToHost), "copy o");
  for (long long i = 0; i < n; ++i)
    if (!std::isfinite(half_value(ho[i]))) return INFINITY;
  const int D = p.head_dim, T = p.tokens;
  const int heads = p.batch * p.heads;
  double worst = 0;
  std::vector<double> scores(T), out(D);
  for (const int head : {0, heads / 3, 2 * heads / 3, heads - 1})
    for (int r = 0; r < 16; ++r) {
      const int row = static_cast<int>(1LL * r * (T - 1) / 15);
      const long long base = 1LL * head * T * D;
      const int keys = p.causal ? row + 1 : T;
      double m = -INFINITY;
      for (int j = 0; j < keys; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += half_value(p.hq[base + 1LL * row * D + d]) * half_value(p.hk[base + 1LL * j * D + d]);
        scores[j] = dot / std::sqrt(static_cast<double>(D));
        m = std::max(m, scores[j]);
      }
      double sum = 0;
      std::fill(out.begin(), out.end(), 0.0);
      for (int j = 0; j < keys; ++j) {
        const double e = std::exp(scores[j] - m);
        sum += e;
        for (int d = 0; d < D; ++d) out[d] += e * half_value(p.hv[base + 1LL * j * D + d]);
      }
      double largest = 0;
      for (int d = 0; d < D; ++d) largest = std::max(largest, std::fabs(out[d] / sum));
      for (int d = 0; d < D; ++d) {
        const double got = half_value(ho[base + 1LL * row * D + d]);
        worst = std::max(worst, std::fabs(got - out[d] / sum) / std::max(largest, 1e-30));
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
    constexpr auto function = tp::gpu::program<kernel, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int>;
    function<<<programs, 32 * kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(kernel{}, {x[k].data}, {y[k].data}, {z[k].data},
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

// ---- the softmaxes over x[rows, cols], and attention: the kernel table's

// Each configuration (B0, B1; B1 0 for one row per tile) on each shape, as the solution writes it,
// then built for the neighbouring warp counts the table has. With no session, only counts rows.
template <class Entry, class Problem, class Make, class Run>
int sweep_table(session* s, const std::map<std::string, Entry>& table, const std::string& kernel,
                const std::vector<std::vector<int>>& configs, std::optional<Problem>& problem,
                Make make, Run run, const std::string& suffix) {
  int rows = 0;
  for (const auto& blocks : configs) {
    std::string own_key = kernel, name;
    static const char* const names[] = {"B0", "B1", "D"};
    for (std::size_t i = 0; i < blocks.size() && i < 3; ++i) {
      own_key.append(" ").append(std::to_string(blocks[i]));
      name.append(i ? " " : "").append(names[i]).append("=").append(std::to_string(blocks[i]));
    }
    const auto own = table.find(own_key);
    if (own == table.end())
      throw std::runtime_error("the GPU benchmark module has no kernel '" + own_key +
                               "' (bench/gpu_bench_kernels.cu)");
    const std::string file_warps = std::to_string(own->second.warps);
    std::vector<std::pair<std::string, const Entry*>> runs = {
        {name + " num_warps=" + file_warps + suffix, &own->second}};
    for (const int w : {1, 2, 4, 8, 16}) {
      const auto other = table.find(own_key + " w" + std::to_string(w));
      if (other != table.end())
        runs.push_back({name + " num_warps=" + std::to_string(w) + " (file: " + file_warps + ")" + suffix,
                        &other->second});
    }
    // Variants of the same kernel registered as "<key> (what differs)".
    const std::string variants = own_key + " (";
    for (auto it = table.lower_bound(variants); it != table.end() && it->first.rfind(variants, 0) == 0; ++it)
      runs.push_back({name + " num_warps=" + std::to_string(it->second.warps) + " " +
                          it->first.substr(own_key.size() + 1) + suffix,
                      &it->second});
    for (const auto& [variant, entry] : runs) {
      ++rows;
      if (!s) continue;
      if (!problem) problem.emplace(make());
      run(*entry, variant, *problem);
    }
  }
  return rows;
}

int softmax_sweep(session* s, const char* kernel, const std::vector<shape>& shapes,
                  std::vector<std::vector<int>> (*configs)(const shape&)) {
  int rows = 0;
  for (const shape& sh : shapes) {
    std::optional<softmax_problem> p;
    rows += sweep_table(
        s, kernels().softmax, kernel, configs(sh), p,
        [&] { return make_softmax_problem(*s, sh.rows, sh.cols); },
        [&](const kernel_entry<softmax_runner>& e, const std::string& variant, softmax_problem& q) {
          e.run(*s, kernel, variant, q);
        },
        "");
  }
  return rows;
}

// softmax-fused: one row per tile (B1 = N), and 2 and 4 rows per program for rows up to 1024.
std::vector<std::vector<int>> fused_configs(const shape& sh) {
  if (sh.cols <= 1024) return {{1, sh.cols}, {2, sh.cols}, {4, sh.cols}};
  return {{1, sh.cols}};
}
const std::vector<shape> fused_shapes = {{4096, 256},  {4096, 512},  {4096, 1024},
                                         {4096, 2048}, {4096, 4096}, {4096, 8192},
                                         {4096, 16384}, {4096, 32768}};
std::vector<std::vector<int>> two_loop_configs(const shape&) {
  return {{1, 1024}, {1, 2048}, {1, 4096}, {1, 8192}, {1, 16384}};
}
std::vector<std::vector<int>> three_loop_configs(const shape&) { return {{1, 2048}, {1, 4096}}; }

// flash-attention, fp16: batch 4, 16 heads, 4096 tokens; B0 x B1 tiles for each head_dim.
int attention_sweep(session* s) {
  int rows = 0;
  for (const int head_dim : {64, 128}) {
    const std::vector<std::vector<int>> configs =
        head_dim == 64
            ? std::vector<std::vector<int>>{{64, 32, 64}, {64, 64, 64}, {128, 64, 64}}
            : std::vector<std::vector<int>>{{64, 32, 128}, {64, 64, 128}, {128, 32, 128}, {128, 64, 128}};
    std::optional<attention_problem> p;
    for (const bool causal : {false, true}) {
      if (p) p->causal = causal;
      rows += sweep_table(
          s, kernels().attention, "flash-attention", configs, p,
          [&] { return make_attention_problem(*s, 4, 16, 4096, head_dim, causal); },
          [&](const kernel_entry<attention_runner>& e, const std::string& variant,
              attention_problem& q) { e.run(*s, variant, q); },
          causal ? " causal" : "");
    }
  }
  return rows;
}

// ---- the puzzles benchmarked through their specs (bench/gpu_bench_puzzles.cuh)

// One size of a puzzle (its spec's sizes, in order) and the block sizes it runs with there.
struct puzzle_size {
  std::vector<int> sizes;
  std::vector<std::vector<int>> blocks;
};
struct puzzle_sweep {
  const char* puzzle;
  std::vector<puzzle_size> sizes;
};

// Rows of D = 1024 ... 8192 (the hidden sizes of the usual models), 4096 rows.
std::vector<puzzle_size> rows_of(std::vector<std::vector<int>> blocks) {
  std::vector<puzzle_size> out;
  for (const int d : {1024, 2048, 4096, 8192}) out.push_back({{4096, d}, blocks});
  return out;
}

const std::vector<puzzle_sweep>& puzzle_sweeps() {
  static const std::vector<puzzle_sweep> sweeps = {
      {"rms-norm", rows_of({{1, 2048}, {4, 512}})},
      {"layer-norm", rows_of({{1, 2048}, {4, 512}})},
      // A whole row in one tile (T <= B1), one program per row.
      {"softmax-backward",
       {{{4096, 1024}, {{1, 1024}}},
        {{4096, 2048}, {{1, 2048}}},
        {{4096, 4096}, {{1, 4096}}},
        {{4096, 8192}, {{1, 8192}}}}},
      // Vocabularies of 8192 to 131072 classes.
      {"cross-entropy",
       {{{4096, 8192}, {{1, 2048}, {4, 512}}},
        {{4096, 32768}, {{1, 2048}, {4, 512}}},
        {{1024, 131072}, {{1, 2048}, {4, 512}}}}},
      // 4096 tokens of 32 to 128 heads, head_dim 64, 128 and 256 (B1 = D / 2 pairs).
      {"rope",
       {{{4096 * 128, 64}, {{64, 32}}},
        {{4096 * 64, 128}, {{32, 64}}},
        {{4096 * 32, 256}, {{16, 128}}}}},
  };
  return sweeps;
}

int puzzle_sweep_rows(session* s, const puzzle_sweep& sweep) {
  int rows = 0;
  for (const auto& size : sweep.sizes)
    for (const auto& blocks : size.blocks) {
      std::string key = sweep.puzzle, variant;
      static const char* const names[] = {"B0", "B1", "B2", "B3"};
      for (std::size_t i = 0; i < blocks.size() && i < 4; ++i) {
        key.append(" ").append(std::to_string(blocks[i]));
        variant.append(i ? " " : "").append(names[i]).append("=").append(std::to_string(blocks[i]));
      }
      const auto entry = kernels().puzzles.find(key);
      if (entry == kernels().puzzles.end())
        throw std::runtime_error("the GPU benchmark module has no kernel '" + key +
                                 "' (bench/gpu_bench_kernels.cu)");
      ++rows;
      if (s)
        entry->second.run(*s, sweep.puzzle, size.sizes, blocks,
                          variant + " num_warps=" + std::to_string(entry->second.warps));
    }
  return rows;
}

int run_or_count(session* s, const std::vector<std::string>& chosen) {
  int rows = 0;
  for (const auto& b : chosen) {
    if (b == "vector-add")
      for (int log2n = 20; log2n <= 28; ++log2n) {
        ++rows;
        if (s) vector_add<1024>(*s, 1LL << log2n);
      }
    if (b == "softmax-fused") rows += softmax_sweep(s, "softmax-fused", fused_shapes, fused_configs);
    if (b == "long-softmax-3loop")
      rows += softmax_sweep(s, "long-softmax-3loop", long_shapes, three_loop_configs);
    if (b == "long-softmax-2loop")
      rows += softmax_sweep(s, "long-softmax-2loop", long_shapes, two_loop_configs);
    if (b == "matmul") {
      rows += matmul_rows();
      if (s) matmul_sweep(*s);
    }
    if (b == "flash-attention") rows += attention_sweep(s);
    for (const auto& sweep : puzzle_sweeps())
      if (b == sweep.puzzle) rows += puzzle_sweep_rows(s, sweep);
  }
  return rows;
}

void run_all(session& s, const std::vector<std::string>& chosen) {
  s.total = 1 + run_or_count(nullptr, chosen);
  copy_ceiling(s);
  run_or_count(&s, chosen);
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
