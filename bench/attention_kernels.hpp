// The flash-attention solution (puzzle 16) with one thing changed, for the A/Bs of bench/NOTES.md:
// `tilepuzzles bench flash-attention` times these beside the solution (bench/gpu_bench_kernels.cu),
// and bench/probes/attention_probe.cu times one alone.
#pragma once

#include <algorithm>
#include <cmath>

#include "solutions/flash_attention.hpp"
#include "tile/tl.hpp"

namespace tp::bench_gpu {

// Internal to each unit: the same names mean another warp count (tl's inline namespace) in another.
namespace {

enum class attention_change {
  // q loaded as an expression (`auto queries = tl::load(...)`, the blocked layout) instead of
  // declared as a tile: tl::dot stages it through shared memory for every product (version 5).
  q_staged,
  // k loaded as it lies ([B1, D], 16-byte loads) and handed to dot as tl::trans(k): dot stages it
  // as [N, K] rows and reads them with plain ldmatrix (version 6: slower than the kᵀ load).
  keys_trans,
  // the loop over keys a 2-stage tl::range: kᵀ and v of the next block copied into dot's shared
  // memory while the current block's products run (version 7: 30-46 % slower on an H200).
  keys_pipelined,
};

template <class T, int B0, int B1, int D, attention_change Change>
struct ChangedAttention {
  static constexpr int num_warps = solutions::FlashAttention<T, B0, B1, D>::num_warps;
  static constexpr int min_blocks_per_multiprocessor =
      solutions::FlashAttention<T, B0, B1, D>::min_blocks_per_multiprocessor;
  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
    int start_m = tl::program_id(0) * B0;
    int head_offset = tl::program_id(1) * N * D;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
    auto load_queries = [&] {
      return tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
    };
    auto queries = [&] {
      if constexpr (Change == attention_change::q_staged)
        return load_queries();
      else
        return tl::tile<T, B0, D>(load_queries());
    }();
    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    auto step = [&](auto start_n) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      auto products = [&] {
        if constexpr (Change == attention_change::keys_trans) {
          auto keys = tl::load(k + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
          return tl::dot(queries, tl::trans(keys));
        } else {
          auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
          return tl::dot(queries, keys_t);
        }
      };
      auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
      auto visible = col_mask.row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      auto scores = tl::where(visible, products() * qk_scale, -INFINITY);
      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      auto p = tl::exp2(scores - m_new.col());
      auto alpha = tl::exp2(m_i - m_new);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(tl::cast<T>(p), values, acc * alpha.col());
      m_i = m_new;
    };
    int end = CAUSAL ? std::min(N, start_m + B0) : N;
    if constexpr (Change == attention_change::keys_pipelined) {
      for (auto start_n : tl::range(0, end, B1, tl::num_stages<2>)) step(start_n);
    } else {
      for (int start_n = 0; start_n < end; start_n += B1) step(start_n);
    }
    tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
              row_mask.col());
  }
};

}  // namespace

}  // namespace tp::bench_gpu
