// The solutions' kernels that `tilepuzzles bench` times, built for one warp count: tl is built for
// one count per translation unit (tile/config.hpp), so bench/CMakeLists.txt compiles this file once
// per count (TL_NUM_WARPS), and each unit adds to the module's kernel table
// (bench/gpu_bench_session.cuh) the configurations whose num_warps is its count:
//   - the solutions as their files write them (num_warps may depend on the block sizes);
//   - the same kernels built for twice or half the file's count (`with_warps`), to show what the
//     file's choice is worth at each size (Triton passes num_warps at launch; here it is the
//     kernel's constant, so another count is another build of the same code).
#include <string>
#include <utility>

#include "bench/attention_kernels.hpp"
#include "bench/gpu_bench_puzzles.cuh"
#include "bench/gpu_bench_session.cuh"
#include "solutions/cross_entropy.hpp"
#include "solutions/flash_attention.hpp"
#include "solutions/flash_attention_pipelined.hpp"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/layer_norm.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/rms_norm.hpp"
#include "solutions/rope.hpp"
#include "solutions/softmax_backward.hpp"
#include "solutions/softmax_fused.hpp"

namespace tp::bench_gpu {

namespace {

constexpr int warps = TL_NUM_WARPS;

template <class Solution>
struct with_warps : Solution {
  static constexpr int num_warps = warps;
  static constexpr int min_blocks_per_multiprocessor = 0;  // the file's was for its own count
};

// A block of `elements` floats fits 128 registers per thread (the backend's bound,
// cuda/tile_storage.cuh) over this unit's threads.
constexpr bool fits(long long elements) { return elements <= 128LL * 32 * warps; }

template <class Kernel, int B0>
void add_softmax(kernel_table& t, const char* kernel, int b1) {
  if constexpr (Kernel::num_warps == warps)
    t.softmax[kernel_key(kernel, {B0, b1})] = {&softmax<Kernel, B0>, warps};
}

// The solution as written, where its count is this unit's; built for this count, where that is
// twice or half the file's and the block fits.
template <class Solution, int B0, int B1>
void add_softmax_and_neighbours(kernel_table& t, const char* kernel) {
  constexpr int own = Solution::num_warps;
  if constexpr (own == warps) {
    t.softmax[kernel_key(kernel, {B0, B1})] = {&softmax<Solution, B0>, warps};
  } else if constexpr ((own == 2 * warps || warps == 2 * own) && fits(1LL * B0 * B1)) {
    t.softmax[kernel_key(kernel, {B0, B1}, warps)] = {&softmax<with_warps<Solution>, B0>, warps};
  }
}

// ---- attention: checks, then times, one kernel on `p`

template <class Kernel, int B0>
void attention(session& s, const std::string& variant, attention_problem& p) {
  using half = tl::float16;
  const std::string size = p.size();
  s.progress("flash-attention " + size + " " + variant);
  const char* causal = p.causal ? "yes" : "no";
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % p.sets;
    const dim3 grid((p.tokens + B0 - 1) / B0, p.batch * p.heads);
    constexpr auto function = tp::gpu::program<Kernel, tl::ptr<const half>, tl::ptr<const half>, tl::ptr<const half>,
                     tl::ptr<half>, int, int, int, int, int>;
    function<<<grid, 32 * Kernel::num_warps, tp::gpu::shared_arena_bytes<function>(), stream>>>(
            Kernel{}, {reinterpret_cast<const half*>(p.q[k].data)},
            {reinterpret_cast<const half*>(p.k[k].data)},
            {reinterpret_cast<const half*>(p.v[k].data)}, {reinterpret_cast<half*>(p.o[k].data)},
            p.batch, p.heads, p.tokens, p.head_dim, p.causal ? 1 : 0);
  };
  const long long n = 1LL * p.batch * p.heads * p.tokens * p.head_dim;
  cuda_check(cudaMemset(p.o[0].data, 0xff, 2 * n), "cudaMemset");  // NaN
  launch(0, nullptr);
  cuda_check(cudaGetLastError(), "flash-attention");
  cuda_check(cudaDeviceSynchronize(), "flash-attention");
  const double error = attention_error(p);
  if (!(error < 1e-2)) {
    char why[200];
    std::snprintf(why, sizeof why,
                  "WRONG: error %.2g against attention in double (bound 1e-2 of each row's largest |o|)",
                  error);
    s.report("flash-attention", variant, size, "fp16", p.tokens, "tokens", {}, 0, p.flops(), error,
             why, causal);
    return;
  }
  const auto t = tp::gpu::time_launches(launch, s.request->warmup, s.request->runs);
  s.report("flash-attention", variant, size, "fp16", p.tokens, "tokens", t, 0, p.flops(), error, "",
           causal);
}

// The solution as written, where its count is this unit's; built for Neighbour warps too, in
// that count's unit.
template <class Solution, int B0, int B1, int D, int Neighbour = 0>
void add_attention(kernel_table& t) {
  if constexpr (Solution::num_warps == warps)
    t.attention[kernel_key("flash-attention", {B0, B1, D})] = {&attention<Solution, B0>, warps};
  else if constexpr (Neighbour == warps)
    t.attention[kernel_key("flash-attention", {B0, B1, D}, warps)] = {
        &attention<with_warps<Solution>, B0>, warps};
}

// Another kernel of the puzzle, named by `what`, in its own count's unit.
template <class Kernel, int B0, int B1, int D>
void add_attention_variant(kernel_table& t, const char* what) {
  if constexpr (Kernel::num_warps == warps)
    t.attention[kernel_key("flash-attention", {B0, B1, D}) + " (" + what + ")"] = {
        &attention<Kernel, B0>, warps};
}

// The solution with one thing changed (bench/attention_kernels.hpp).
template <int B0, int B1, int D, attention_change Change>
void add_changed_attention(kernel_table& t, const char* change) {
  add_attention_variant<ChangedAttention<tl::float16, B0, B1, D, Change>, B0, B1, D>(t, change);
}

// A puzzle benchmarked through its spec (bench/gpu_bench_puzzles.cuh), in its count's unit.
template <class Kernel>
void add_puzzle(kernel_table& t, const char* puzzle, std::initializer_list<int> blocks) {
  if constexpr (Kernel::num_warps == warps) t.puzzles[kernel_key(puzzle, blocks)] = {&bench_gpu::puzzle<Kernel>, warps};
}

}  // namespace

template <>
void add_kernels<TL_NUM_WARPS>(kernel_table& t) {
  // softmax-fused: one row of N columns per tile, B0 rows per program.
  [&]<int... B1>(std::integer_sequence<int, B1...>) {
    (add_softmax_and_neighbours<solutions::SoftmaxFused<1, B1>, 1, B1>(t, "softmax-fused"), ...);
  }(std::integer_sequence<int, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768>{});
  [&]<int... B1>(std::integer_sequence<int, B1...>) {
    (add_softmax_and_neighbours<solutions::SoftmaxFused<2, B1>, 2, B1>(t, "softmax-fused"), ...);
    (add_softmax_and_neighbours<solutions::SoftmaxFused<4, B1>, 4, B1>(t, "softmax-fused"), ...);
  }(std::integer_sequence<int, 256, 512, 1024>{});
  // long-softmax-2loop: trips of B1 columns.
  [&]<int... B1>(std::integer_sequence<int, B1...>) {
    (add_softmax_and_neighbours<solutions::LongSoftmax2Loop<1, B1>, 1, B1>(t, "long-softmax-2loop"),
     ...);
  }(std::integer_sequence<int, 1024, 2048, 4096, 8192, 16384>{});
  // long-softmax-3loop
  add_softmax<solutions::LongSoftmax3Loop<1, 2048>, 1>(t, "long-softmax-3loop", 2048);
  add_softmax<solutions::LongSoftmax3Loop<1, 4096>, 1>(t, "long-softmax-3loop", 4096);
  // flash-attention, fp16: B0 queries by B1 keys per step, head_dim D, with the file's num_warps
  // (4 for B0 = 64, 8 for 128); 128 x 64 x 64 also with 4 warps, 64 x 64 x 64
  // also with q staged for every product, 64 x 64 x 64 and 64 x 64 x 128 also with k loaded as it
  // lies and transposed by tl::trans (below, ChangedAttention); 128 x 64 x 64, 64 x 64 x 128 and
  // 128 x 64 x 128 also as the fast variant, its loop over keys a 2-stage tl::range. 128 x 64 x 128 (8 warps) needs 50 KiB of shared
  // memory: its staged keys and values (16 KiB) and q's conversion (33 KiB).
  using tl::float16;
  using solutions::FlashAttention;
  add_attention<FlashAttention<float16, 64, 32, 64>, 64, 32, 64>(t);
  add_attention<FlashAttention<float16, 64, 64, 64>, 64, 64, 64>(t);
  add_attention<FlashAttention<float16, 128, 64, 64>, 128, 64, 64, 4>(t);
  add_attention<FlashAttention<float16, 64, 32, 128>, 64, 32, 128>(t);
  add_attention<FlashAttention<float16, 64, 64, 128>, 64, 64, 128>(t);
  add_attention<FlashAttention<float16, 128, 32, 128>, 128, 32, 128>(t);
  add_attention<FlashAttention<float16, 128, 64, 128>, 128, 64, 128>(t);
  // The A/Bs of bench/NOTES.md: the solution with one thing changed (ChangedAttention).
  using change = attention_change;
  add_changed_attention<64, 64, 64, change::q_staged>(t, "q staged");
  add_changed_attention<64, 64, 64, change::keys_trans>(t, "k with tl::trans");
  add_changed_attention<64, 64, 128, change::keys_trans>(t, "k with tl::trans");
  // The fast variant (solutions/flash_attention_pipelined.hpp).
  using solutions::FlashAttentionPipelined;
  add_attention_variant<FlashAttentionPipelined<float16, 128, 64, 64>, 128, 64, 64>(t, "pipelined");
  add_attention_variant<FlashAttentionPipelined<float16, 64, 64, 128>, 64, 64, 128>(t, "pipelined");
  add_attention_variant<FlashAttentionPipelined<float16, 128, 64, 128>, 128, 64, 128>(t, "pipelined");
  // The puzzles benchmarked through their specs, at the block sizes of puzzle_sweeps
  // (bench/gpu_benchmarks.cu); each solution's num_warps follows from B0 * B1.
  add_puzzle<solutions::RmsNorm<1, 2048>>(t, "rms-norm", {1, 2048});
  add_puzzle<solutions::RmsNorm<4, 512>>(t, "rms-norm", {4, 512});
  add_puzzle<solutions::LayerNorm<1, 2048>>(t, "layer-norm", {1, 2048});
  add_puzzle<solutions::LayerNorm<4, 512>>(t, "layer-norm", {4, 512});
  add_puzzle<solutions::CrossEntropy<1, 2048>>(t, "cross-entropy", {1, 2048});
  add_puzzle<solutions::CrossEntropy<4, 512>>(t, "cross-entropy", {4, 512});
  add_puzzle<solutions::Rope<64, 32>>(t, "rope", {64, 32});
  add_puzzle<solutions::Rope<32, 64>>(t, "rope", {32, 64});
  add_puzzle<solutions::Rope<16, 128>>(t, "rope", {16, 128});
  add_puzzle<solutions::SoftmaxBackward<1, 1024>>(t, "softmax-backward", {1, 1024});
  add_puzzle<solutions::SoftmaxBackward<1, 2048>>(t, "softmax-backward", {1, 2048});
  add_puzzle<solutions::SoftmaxBackward<1, 4096>>(t, "softmax-backward", {1, 4096});
  add_puzzle<solutions::SoftmaxBackward<1, 8192>>(t, "softmax-backward", {1, 8192});
}

}  // namespace tp::bench_gpu
