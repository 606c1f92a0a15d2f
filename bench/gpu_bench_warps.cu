// The softmax solutions with another warp count than the `num_warps = 4` of their files, for
// `tilepuzzles bench` to measure what that one number is worth at each size (issue 12: Triton
// picks 8 or 16 warps for long rows, and torch one warp per short row). tl is built for one warp
// count per translation unit (tile/config.hpp), so bench/CMakeLists.txt compiles this file once
// per count with TL_NUM_WARPS set; each unit defines warps_variants_<count>.
//
// The kernels are the solutions' own, unchanged but for num_warps: what a learner gets by editing
// that line. The variant's name says the count.
#include <string>

#include "bench/gpu_bench_session.cuh"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/softmax_fused.hpp"

namespace tp::bench_gpu {

namespace {

constexpr int warps = TL_NUM_WARPS;

template <class Solution>
struct with_warps : Solution {
  static constexpr int num_warps = warps;
};

std::string variant(const std::string& blocks) {
  return blocks + " num_warps=" + std::to_string(warps);
}

// softmax-fused, one row of N columns per tile, over 4096 rows; B0 rows per program.
template <int B0, int B1>
void fused(session& s) {
  auto p = make_softmax_problem(s, 4096, B1);
  softmax<with_warps<solutions::SoftmaxFused<B0, B1>>, B0>(
      s, "softmax-fused", variant("B0=" + std::to_string(B0) + " B1=N"), p);
}

template <int B1>
void two_loop(session& s) {
  for (const shape& sh : long_shapes) {
    auto p = make_softmax_problem(s, sh.rows, sh.cols);
    softmax<with_warps<solutions::LongSoftmax2Loop<1, B1>>, 1>(
        s, "long-softmax-2loop", variant("B0=1 B1=" + std::to_string(B1)), p);
  }
}

// Short rows with fewer warps (the row's reduction within one warp, no shared memory), long rows
// with more (fewer elements, so fewer registers, per thread).
// With no session, only counts the rows.
int run(session* s, const std::string& benchmark) {
  int rows = 0;
  auto fused_row = [&](auto f) { s ? f(*s) : void(++rows); };
  auto two_loop_rows = [&](auto f) {
    s ? f(*s) : void(rows += static_cast<int>(long_shapes.size()));
  };
  if (benchmark == "softmax-fused") {
    if constexpr (warps <= 2) {
      fused_row(fused<1, 256>), fused_row(fused<2, 256>), fused_row(fused<4, 256>);
      fused_row(fused<1, 512>), fused_row(fused<2, 512>);
      fused_row(fused<1, 1024>), fused_row(fused<2, 1024>);
    } else {
      if constexpr (warps == 8) fused_row(fused<1, 1024>), fused_row(fused<1, 2048>);
      fused_row(fused<1, 4096>), fused_row(fused<1, 8192>), fused_row(fused<1, 16384>);
      fused_row(fused<1, 32768>);
    }
  }
  if (benchmark == "long-softmax-2loop") {
    if constexpr (warps == 8) two_loop_rows(two_loop<4096>), two_loop_rows(two_loop<8192>);
    if constexpr (warps == 16) two_loop_rows(two_loop<8192>), two_loop_rows(two_loop<16384>);
  }
  return rows;
}

}  // namespace

void TL_CONCAT(warps_variants_, TL_NUM_WARPS)(session& s, const std::string& benchmark) {
  run(&s, benchmark);
}

int TL_CONCAT(warps_variant_rows_, TL_NUM_WARPS)(const std::string& benchmark) {
  return run(nullptr, benchmark);
}

}  // namespace tp::bench_gpu
