// The matrix product inside tl::dot: c[M, N] = acc[M, N] + a[M, K] @ b[K, N], float32, row-major.
#pragma once

namespace tl::sim {

// Each c[i, j] starts from acc[i, j] and adds the K products a[i, k] * b[k, j] in order of k,
// every product rounded to float before it is added (no fused multiply-add), exactly as the loop
//   c[i, j] = acc[i, j]; for k: c[i, j] = c[i, j] + a[i, k] * b[k, j]
// does. Lanes of a vector are different (i, j), never different k, so the result has the same
// bits on every machine and for every vector width the CPU offers (AVX-512, AVX2 or SSE2, chosen
// at run time). M must be a multiple of 4 and N of 16: tl::dot's dimensions are powers of two of
// at least 16. acc and c may be the same array.
void dot_accumulate(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K);

}  // namespace tl::sim
