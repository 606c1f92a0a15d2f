// The matrix product inside tl::dot: c[M, N] = acc[M, N] + a[M, K] @ b[K, N], float32, row-major.
#pragma once

namespace tl::sim {

// Each c[i, j] starts from acc[i, j] and adds the K products a[i, k] * b[k, j] in order of k,
// each with one fused multiply-add (IEEE 754 fusedMultiplyAdd: the product is not rounded before
// the addition), exactly as the loop
//   c[i, j] = acc[i, j]; for k: c[i, j] = std::fma(a[i, k], b[k, j], c[i, j])
// does, and as the GPU's FFMA lowering does (cuda/dot.cuh). Lanes of a vector are different
// (i, j), never different k, so the result has the same bits on every machine and for every
// instruction set (AVX-512, AVX2 with FMA, or std::fma lane by lane, chosen at run time). M must
// be a multiple of 4 and N of 16: tl::dot's dimensions are powers of two of at least 16. acc and
// c may be the same array.
void dot_accumulate(const float* a, const float* b, const float* acc, float* c, int M, int N,
                    int K);

// The instruction sets dot_accumulate chooses from, so that the tests can hold every one this
// machine has to the same bits.
enum class dot_instructions { portable, avx2, avx512 };
bool dot_instructions_available(dot_instructions set);
void dot_accumulate(dot_instructions set, const float* a, const float* b, const float* acc,
                    float* c, int M, int N, int K);

}  // namespace tl::sim
