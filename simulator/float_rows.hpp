// Float addition, subtraction, multiplication and division over rows of lanes, in the widest
// vectors the CPU has (AVX-512, AVX2 or SSE2, chosen at run time).
//
// Why not the kernel's own loop: the kernels are compiled for plain x86-64 (SSE2), and an SSE
// operation whose operand or result is subnormal takes a microcode assist of a hundred cycles or
// more, where AVX-512 takes about a tenth of that (measured on the development machine's Xeon:
// 2048 products of subnormal floats, 56 us with SSE, 5.7 us with AVX-512, 0.1 us when normal).
// Online softmaxes make subnormal weights all the time (exp of a score far below the row's
// maximum), and `weights * values` then spent more time in assists than everything else.
//
// Each lane is one IEEE operation rounded to nearest, the same bits at every vector width.
#pragma once

namespace tl::sim {

enum class float_op { add, sub, mul, div };

// out[r * cols + c] = a[r * a_row + c] OP b[r * b_row + c] for r < rows, c < cols: a row
// stride of 0 repeats one row (a [1, C] operand broadcast over [R, C]).
void float_rows(float_op op, const float* a, long long a_row, const float* b, long long b_row,
                float* out, long long rows, long long cols);

}  // namespace tl::sim
