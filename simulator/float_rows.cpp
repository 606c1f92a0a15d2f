#include "simulator/float_rows.hpp"

#include <cstring>

namespace tl::sim {

namespace {

// One source for every instruction set, inlined into a function compiled for each.
template <int W, float_op Op>
[[gnu::always_inline]] inline void rows_of(const float* a, long long a_row, const float* b,
                                           long long b_row, float* out, long long rows,
                                           long long cols) {
  typedef float vec __attribute__((vector_size(W * sizeof(float))));
  for (long long r = 0; r < rows; ++r) {
    const float* pa = a + r * a_row;
    const float* pb = b + r * b_row;
    float* po = out + r * cols;
    long long c = 0;
    for (; c + W <= cols; c += W) {
      vec x, y;
      std::memcpy(&x, pa + c, sizeof x);
      std::memcpy(&y, pb + c, sizeof y);
      vec z;
      if constexpr (Op == float_op::add) z = x + y;
      else if constexpr (Op == float_op::sub) z = x - y;
      else if constexpr (Op == float_op::mul) z = x * y;
      else z = x / y;
      std::memcpy(po + c, &z, sizeof z);
    }
    for (; c < cols; ++c) {
      if constexpr (Op == float_op::add) po[c] = pa[c] + pb[c];
      else if constexpr (Op == float_op::sub) po[c] = pa[c] - pb[c];
      else if constexpr (Op == float_op::mul) po[c] = pa[c] * pb[c];
      else po[c] = pa[c] / pb[c];
    }
  }
}

template <int W>
[[gnu::always_inline]] inline void dispatch(float_op op, const float* a, long long a_row,
                                            const float* b, long long b_row, float* out,
                                            long long rows, long long cols) {
  switch (op) {
    case float_op::add: return rows_of<W, float_op::add>(a, a_row, b, b_row, out, rows, cols);
    case float_op::sub: return rows_of<W, float_op::sub>(a, a_row, b, b_row, out, rows, cols);
    case float_op::mul: return rows_of<W, float_op::mul>(a, a_row, b, b_row, out, rows, cols);
    case float_op::div: return rows_of<W, float_op::div>(a, a_row, b, b_row, out, rows, cols);
  }
}

#if defined(__x86_64__)
[[gnu::target("avx512f")]] void rows_avx512(float_op op, const float* a, long long a_row,
                                            const float* b, long long b_row, float* out,
                                            long long rows, long long cols) {
  dispatch<16>(op, a, a_row, b, b_row, out, rows, cols);
}
[[gnu::target("avx2")]] void rows_avx2(float_op op, const float* a, long long a_row,
                                       const float* b, long long b_row, float* out,
                                       long long rows, long long cols) {
  dispatch<8>(op, a, a_row, b, b_row, out, rows, cols);
}
#endif
void rows_sse2(float_op op, const float* a, long long a_row, const float* b, long long b_row,
               float* out, long long rows, long long cols) {
  dispatch<4>(op, a, a_row, b, b_row, out, rows, cols);
}

using rows_fn = void (*)(float_op, const float*, long long, const float*, long long, float*,
                         long long, long long);

rows_fn best_rows() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return rows_avx512;
  if (__builtin_cpu_supports("avx2")) return rows_avx2;
#endif
  return rows_sse2;
}

}  // namespace

void float_rows(float_op op, const float* a, long long a_row, const float* b, long long b_row,
                float* out, long long rows, long long cols) {
  static const rows_fn rows_of_best = best_rows();
  rows_of_best(op, a, a_row, b, b_row, out, rows, cols);
}

}  // namespace tl::sim
