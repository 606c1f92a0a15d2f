// Puzzle 14, matmul, the fast variant: Triton's 09 tutorial in tl. The operands come through
// tensor descriptors inside a pipelined range, which the GPU turns into rings of shared-memory
// slots that the copy engine fills ahead and tl::dot reads in place (cuda/ring.cuh); the programs
// walk the tiles of z in groups of GROUP_M rows, so that the tiles running at once share their
// rows of x and columns of y in the L2 cache. The plain solution (matmul.hpp) is what to write
// first; this one is held to the same spec (tests/corpus_quantized_attention.cpp) and benchmarked
// beside it in fp16 and bf16 (tilepuzzles bench matmul).
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <class T, int B0, int B1, int B_MID, int STAGES = 3, int GROUP_M = 8, int WARPS = 4>
struct MatmulFast {
  static constexpr int num_warps = WARPS;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int N0, int N1,
                            int N2, int MID) const {
    // The program's tile of z, in groups of GROUP_M rows of tiles.
    int num_pid_m = tl::cdiv(N0, B0), num_pid_n = tl::cdiv(N1, B1);
    int pid = tl::program_id(0) + tl::program_id(1) * num_pid_m;
    int group = pid / (GROUP_M * num_pid_n);
    int first_pid_m = group * GROUP_M;
    int group_size_m = std::min(num_pid_m - first_pid_m, GROUP_M);
    int pid_m = first_pid_m + pid % group_size_m;
    int pid_n = pid % (GROUP_M * num_pid_n) / group_size_m;
    int batch = tl::program_id(2);

    auto x_desc = tl::make_tensor_descriptor(x + batch * N0 * MID, {N0, MID}, {MID, 1},
                                             tl::block_shape<B0, B_MID>);
    auto y_desc = tl::make_tensor_descriptor(y + batch * MID * N1, {MID, N1}, {N1, 1},
                                             tl::block_shape<B_MID, B1>);
    auto z_desc = tl::make_tensor_descriptor(z + batch * N0 * N1, {N0, N1}, {N1, 1},
                                             tl::block_shape<B0, B1>);

    tl::tile<float, B0, B1> acc = 0.0f;
    for (auto k : tl::range(0, MID, B_MID, tl::num_stages<STAGES>)) {
      auto a = x_desc.load({pid_m * B0, k});
      auto b = y_desc.load({k, pid_n * B1});
      acc = tl::dot(a, b, acc);
    }
    z_desc.store({pid_m * B0, pid_n * B1}, acc);
  }
};

}  // namespace solutions
