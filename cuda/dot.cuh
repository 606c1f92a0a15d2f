// tl::dot with fp32 operands on the GPU: an FFMA micro-kernel, exact (no TF32 rounding). int8 and
// uint8 operands take the same path with int32 values and integer multiply-adds, which wrap
// around where the simulator reports a sum that leaves int32.
//
// The result is computed where it lives: every thread computes the elements that the
// accumulator's layout (the declared layout of [M, N], the mma.sync accumulator) gives it, so an
// `acc` that is a declared `tl::tile` never converts. The operands go through shared memory: the
// first copy of each element of `a` is written transposed (a^T[k][i]), `b` as it is (b[k][j]),
// both rows padded by 4 words, each row's entries in the order of dot_staging below, which puts a
// thread's own rows (and columns) next to each other so that it reads them as 16-byte vectors.
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
#include "cuda/front_hooks.cuh"
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

// Where the rows of a^T (Rows) or the columns of b sit in their shared-memory row: a permutation
// of the index bits. A thread of the accumulator's layout holds the rows (columns) whose register
// bits vary and whose lane and warp bits are its own; the permutation puts the first two register
// bits lowest (one float4), then the lane and warp bits (so the lanes of a quarter warp read
// consecutive float4s: no bank conflict), then the other register bits. A thread's values for one
// k are then whole float4s, one LDS.128 for each four, instead of one LDS per value.
template <layouts::linear_layout L, int LogN, bool Rows>
struct dot_staging {
  static constexpr int first = Rows ? LogN : 0;  // the flat-index bit of the index's bit 0
  static constexpr int bits = Rows ? L.out_bits - LogN : LogN;
  static constexpr bool in_dimension(int flat_bit) { return Rows ? flat_bit >= LogN : flat_bit < LogN; }
  // The index bits that come from registers, in the order of the registers (dot_grid's numbering).
  static constexpr int register_count() {
    int c = 0;
    for (int i = 0; i < L.reg_bits; ++i)
      if (in_dimension(L.reg[i])) ++c;
    return c;
  }
  static constexpr int registers = register_count();
  static constexpr int register_bit(int k) {
    for (int i = 0, seen = 0; i < L.reg_bits; ++i)
      if (in_dimension(L.reg[i]) && seen++ == k) return L.reg[i] - first;
    return -1;
  }
  static constexpr int vector_bits = registers < 2 ? registers : 2;
  static constexpr int others = bits - registers;
  static constexpr int slot(int b) {
    for (int k = 0; k < registers; ++k)
      if (register_bit(k) == b) return k < vector_bits ? k : others + k;
    int m = 0;
    for (int c = 0; c < b; ++c) {
      bool from_register = false;
      for (int k = 0; k < registers; ++k) from_register = from_register || register_bit(k) == c;
      if (!from_register) ++m;
    }
    return vector_bits + m;
  }
  // The position of index i (a bit permutation, so the position of a | b for disjoint bits is
  // the position of a | the position of b).
  static constexpr int position(int i) {
    int p = 0;
    for (int b = 0; b < bits; ++b) p |= ((i >> b) & 1) << slot(b);
    return p;
  }
  // The position of the thread's x-th value (dot_grid's numbering) after its first one.
  static constexpr int offset(int x) {
    return (x & ((1 << vector_bits) - 1)) | ((x >> vector_bits) << (vector_bits + others));
  }
};

// 16 and 8 bytes read at once (CUDA's float4 and float2, or int4 and int2, also under the host
// emulation).
template <class T>
struct alignas(16) dot_vector4 {
  T x, y, z, w;
};
template <class T>
struct alignas(8) dot_vector2 {
  T x, y;
};

// A thread's values of one k: Count words from `row`, as vectors of 2^S::vector_bits.
template <class S, class T, int Count>
__device__ __forceinline__ void load_values(const T* row, T (&v)[Count]) {
  constexpr int width = 1 << S::vector_bits;
  static_for<Count / width>([&](auto c) {
    constexpr int at = S::offset(decltype(c)::value * width), first = decltype(c)::value * width;
    if constexpr (width == 4) {
      const dot_vector4<T> q = *reinterpret_cast<const dot_vector4<T>*>(row + at);
      v[first] = q.x, v[first + 1] = q.y, v[first + 2] = q.z, v[first + 3] = q.w;
    } else if constexpr (width == 2) {
      const dot_vector2<T> q = *reinterpret_cast<const dot_vector2<T>*>(row + at);
      v[first] = q.x, v[first + 1] = q.y;
    } else {
      v[first] = row[at];
    }
  });
}

// acc + x * y in the accumulator's type: one FFMA, or an integer multiply-add that wraps.
__device__ __forceinline__ float multiply_add(float x, float y, float acc) { return fmaf(x, y, acc); }
__device__ __forceinline__ int multiply_add(int x, int y, int acc) {
  return static_cast<int>(static_cast<unsigned>(x) * static_cast<unsigned>(y) +
                          static_cast<unsigned>(acc));
}

// Acc is float for float32 operands, int for int8 and uint8 ones: the staged values and the
// accumulator are 4-byte words of that type.
template <int M, int N, int K, class Acc, class A, class B, class C>
__device__ __forceinline__ auto dot_cuda_cores(const A& a, const B& b, const C& acc) {
  using SC = shape<M, N>;
  using LC = declared_layout<SC>;
  constexpr int log_n = layouts::log2_exact(N), log_k = layouts::log2_exact(K);
  // Words per k row of a^T and of b: padded by 4, and whole float4s so that every row is aligned.
  constexpr int a_stride = (M + 4 + 3) / 4 * 4, b_stride = (N + 4 + 3) / 4 * 4;

  // Everything that may convert through shared memory first.
  const auto& da = as_data(a);
  const auto& db = as_data(b);
  using LA = typename std::remove_cvref_t<decltype(da)>::layout_type;
  using LB = typename std::remove_cvref_t<decltype(db)>::layout_type;
  basic_tile<Acc, SC, LC> out(detail::uninitialized_t{});
  evaluate_into(out.storage, acc);

  constexpr int staged = K * a_stride + K * b_stride;
  constexpr bool fits = staged * 4 <= max_block_shared_bytes;
  static_assert(fits,
                "tl::dot of these blocks needs more than 227 KiB of shared memory on the GPU (its "
                "operands, [M, K] and [K, N] 4-byte words, are staged there): use a smaller K "
                "block (B_MID), or smaller M and N blocks");
  Acc* const as = shared_buffer<Acc, fits ? staged : 4>();  // one error, not two
  Acc* const bs = as + K * a_stride;
  using rows_of_a = dot_staging<LC::value, log_n, true>;
  using cols_of_b = dot_staging<LC::value, log_n, false>;
  __syncthreads();  // earlier readers of this buffer are done
  // Each element's place: its k and the position of its row (column), the thread's own part
  // computed once and each register's part at compile time.
  if (holds_first_copy<LA>()) {
    const int base = thread_flat<LA>();
    const int k_base = base & (K - 1), row_base = rows_of_a::position(base >> log_k);
    static_for<LA::registers>([&](auto r) {
      constexpr long long bits = LA::value.register_bits_of(decltype(r)::value);
      constexpr int k = static_cast<int>(bits & (K - 1));
      constexpr int row = rows_of_a::position(static_cast<int>(bits >> log_k));
      as[(k_base | k) * a_stride + (row_base | row)] = static_cast<Acc>(da.storage.regs[r]);
    });
  }
  if (holds_first_copy<LB>()) {
    const int base = thread_flat<LB>();
    const int k_base = base >> log_n, col_base = cols_of_b::position(base & (N - 1));
    static_for<LB::registers>([&](auto r) {
      constexpr long long bits = LB::value.register_bits_of(decltype(r)::value);
      constexpr int k = static_cast<int>(bits >> log_n);
      constexpr int col = cols_of_b::position(static_cast<int>(bits & (N - 1)));
      bs[(k_base | k) * b_stride + (col_base | col)] = static_cast<Acc>(db.storage.regs[r]);
    });
  }
  __syncthreads();

  using grid = dot_grid<LC::value, log_n>;
  static_assert(grid::rows == 1 << rows_of_a::registers && grid::cols == 1 << cols_of_b::registers,
                "tl (GPU backend): internal error: dot's staging disagrees with its grid");
  const int base = thread_flat<LC>();
  const Acc* a_col = as + rows_of_a::position(base >> log_n);
  const Acc* b_row = bs + cols_of_b::position(base & (N - 1));
#if defined(__CUDACC__)
#pragma unroll 4
#endif
  for (int k = 0; k < K; ++k) {
    Acc av[grid::rows], bv[grid::cols];
    load_values<rows_of_a>(a_col, av);
    load_values<cols_of_b>(b_row, bv);
    static_for<LC::registers>([&](auto r) {
      constexpr int reg = decltype(r)::value;
      out.storage.regs[reg] =
          multiply_add(av[grid::row_index(reg)], bv[grid::col_index(reg)], out.storage.regs[reg]);
    });
    a_col += a_stride;
    b_row += b_stride;
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
