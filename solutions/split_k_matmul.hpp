// Puzzle 29, split-K matmul: c = a @ b with the shared dimension K split over SPLIT_K programs per
// output tile. Program (m, n, z) multiplies the blocks of K numbered z, z + SPLIT_K, ..., and adds
// its partial tile into c (zeros at the start) with one atomic_add, as Triton's split-K kernels
// do when M and N are too small to fill the GPU with tiles.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int BM, int BN, int BK, int SPLIT_K>
struct SplitKMatmul {
  static constexpr int num_warps = 4;

  TL_KERNEL void operator()(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c,
                            int M, int N, int K) const {
    auto rows = tl::program_id(0) * BM + tl::arange<BM>();
    auto cols = tl::program_id(1) * BN + tl::arange<BN>();
    const int slice = tl::program_id(2);

    tl::tile<float, BM, BN> partial = 0.0f;
    for (int k = slice * BK; k < K; k += BK * SPLIT_K) {
      auto ks = k + tl::arange<BK>();
      auto a_block = tl::load(a + rows.col() * K + ks.row(), (rows < M).col() & (ks < K).row(), 0.0f);
      auto b_block = tl::load(b + ks.col() * N + cols.row(), (ks < K).col() & (cols < N).row(), 0.0f);
      partial = tl::dot(a_block, b_block, partial);
    }
    tl::atomic_add(c + rows.col() * N + cols.row(), partial, (rows < M).col() & (cols < N).row());
  }
};

}  // namespace solutions
