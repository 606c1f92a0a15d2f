// tl::dot with fp32 operands on the GPU: an FFMA micro-kernel, exact (no TF32 rounding).
//
// The result is computed where it lives: every thread computes the elements that the
// accumulator's layout (the declared layout of [M, N], the mma.sync accumulator) gives it, so an
// `acc` that is a declared `tl::tile` never converts. The operands go through shared memory: the
// first copy of each element of `a` is written transposed (a^T[k][i], so that the rows one warp
// reads for one k are consecutive words), `b` as it is (b[k][j]), both rows padded by 4 words.
// Then each thread, for k = 0, 1, ..., K - 1 in order, reads the a values of its rows and the b
// values of its columns once and updates each of its elements with one fused multiply-add: the
// same order of k as the simulator, which multiplies and adds without fusing (docs/tl.md states
// the tolerance this gives).
//
// The buffer is shared memory of the conversions' kind (cuda/convert.cuh): a barrier before it is
// written (earlier readers are done), one after (every copy is in). Both operands and `acc` are
// evaluated before the first barrier, since their evaluation may itself convert through a buffer
// of the same size.
#pragma once

#include "cuda/runtime.cuh"

#include <cmath>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/layout.cuh"
#include "cuda/reduce.cuh"
#include "cuda/tile_storage.cuh"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// How the registers of an [M, N] layout split into rows and columns: each register bit of the
// layout is a row bit or a column bit, so a thread's elements are a grid of its rows by its
// columns, and register k sits at row index row_index(k), column index col_index(k).
template <layouts::linear_layout L, int LogN>
struct dot_grid {
  static constexpr bool is_row_bit(int i) { return L.reg[i] >= LogN; }
  static constexpr int count(bool rows) {
    int c = 0;
    for (int i = 0; i < L.reg_bits; ++i)
      if (is_row_bit(i) == rows) ++c;
    return 1 << c;
  }
  static constexpr int rows = count(true), cols = count(false);
  static constexpr int index(int k, bool of_rows) {
    int r = 0, next = 0;
    for (int i = 0; i < L.reg_bits; ++i)
      if (is_row_bit(i) == of_rows) r |= ((k >> i) & 1) << next++;
    return r;
  }
  static constexpr int row_index(int k) { return index(k, true); }
  static constexpr int col_index(int k) { return index(k, false); }
  // The offset (in rows or columns) of row or column index `x` from the thread's first one.
  static constexpr int offset(int x, bool of_rows) {
    long long flat = 0;
    for (int i = 0, next = 0; i < L.reg_bits; ++i)
      if (is_row_bit(i) == of_rows) {
        if ((x >> next) & 1) flat |= 1LL << L.reg[i];
        ++next;
      }
    return static_cast<int>(of_rows ? flat >> LogN : flat & ((1LL << LogN) - 1));
  }
};

template <int M, int N, int K, class A, class B, class C>
__device__ __forceinline__ auto dot_fp32(const A& a, const B& b, const C& acc) {
  using SC = shape<M, N>;
  using LC = declared_layout<SC>;
  constexpr int log_n = layouts::log2_exact(N), log_k = layouts::log2_exact(K);
  constexpr int a_stride = M + 4, b_stride = N + 4;  // words per k row of a^T and of b

  // Everything that may convert through shared memory first.
  const auto& da = as_data(a);
  const auto& db = as_data(b);
  using LA = typename std::remove_cvref_t<decltype(da)>::layout_type;
  using LB = typename std::remove_cvref_t<decltype(db)>::layout_type;
  basic_tile<float, SC, LC> out(detail::uninitialized_t{});
  evaluate_into(out.storage, acc);

  constexpr int staged = K * a_stride + K * b_stride;
  constexpr bool fits = staged * 4 <= 48 * 1024;
  static_assert(fits,
                "tl::dot of these blocks needs more than 48 KiB of shared memory on the GPU (its "
                "operands, [M, K] and [K, N] floats, are staged there): use a smaller K block "
                "(B_MID), or smaller M and N blocks");
  float* const as = shared_buffer<float, fits ? staged : 4>();  // one error, not two
  float* const bs = as + K * a_stride;
  __syncthreads();  // earlier readers of this buffer are done
  if (holds_first_copy<LA>()) {
    const int base = thread_flat<LA>();
    static_for<LA::registers>([&](auto r) {
      const int flat = flat_of<LA, decltype(r)::value>(base);
      as[(flat & (K - 1)) * a_stride + (flat >> log_k)] = static_cast<float>(da.storage.regs[r]);
    });
  }
  if (holds_first_copy<LB>()) {
    const int base = thread_flat<LB>();
    static_for<LB::registers>([&](auto r) {
      const int flat = flat_of<LB, decltype(r)::value>(base);
      bs[(flat >> log_n) * b_stride + (flat & (N - 1))] = static_cast<float>(db.storage.regs[r]);
    });
  }
  __syncthreads();

  using grid = dot_grid<LC::value, log_n>;
  const int base = thread_flat<LC>();
  const float* a_col = as + (base >> log_n);
  const float* b_row = bs + (base & (N - 1));
#if defined(__CUDACC__)
#pragma unroll 4
#endif
  for (int k = 0; k < K; ++k) {
    float av[grid::rows], bv[grid::cols];
    static_for<grid::rows>([&](auto i) { av[i] = a_col[grid::offset(decltype(i)::value, true)]; });
    static_for<grid::cols>([&](auto j) { bv[j] = b_row[grid::offset(decltype(j)::value, false)]; });
    static_for<LC::registers>([&](auto r) {
      constexpr int reg = decltype(r)::value;
      out.storage.regs[reg] =
          fmaf(av[grid::row_index(reg)], bv[grid::col_index(reg)], out.storage.regs[reg]);
    });
    a_col += a_stride;
    b_row += b_stride;
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
