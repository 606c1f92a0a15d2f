// What the GPU's own min/max instructions do with NaN and signed zeros, printed for
// bench/HISTORY.md: tile/lanes.hpp relies on max.NaN.f32 and min.NaN.f32 giving NaN for a NaN in
// either operand and ordering -0 below +0 in either order, which is tl's maximum and minimum.
//
//   ./build/tilepuzzles_bench_gpu_float_facts
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

__global__ void probe(const float* a, const float* b, float* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  float d;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a[i]), "f"(b[i]));
  out[4 * i + 0] = d;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a[i]), "f"(b[i]));
  out[4 * i + 1] = d;
  out[4 * i + 2] = fmaxf(a[i], b[i]);
  out[4 * i + 3] = fminf(a[i], b[i]);
}

const char* name(float x) {
  static char buf[8][32];
  static int k = 0;
  char* s = buf[k++ % 8];
  if (std::isnan(x)) std::snprintf(s, 32, "NaN");
  else if (x == 0.0f) std::snprintf(s, 32, "%s0", std::signbit(x) ? "-" : "+");
  else std::snprintf(s, 32, "%g", x);
  return s;
}

}  // namespace

int main() {
  const float nan = NAN;
  const float a[] = {-0.0f, 0.0f, nan, 1.0f, nan};
  const float b[] = {0.0f, -0.0f, 1.0f, nan, nan};
  const int n = 5;
  float *da, *db, *dout;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dout, 4 * n * sizeof(float));
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  probe<<<1, 32>>>(da, db, dout, n);
  float out[4 * 5];
  if (cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::printf("the probe failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("%-10s %-12s %-12s %-8s %-8s\n", "a, b", "max.NaN.f32", "min.NaN.f32", "fmaxf", "fminf");
  for (int i = 0; i < n; ++i)
    std::printf("%-4s %-5s %-12s %-12s %-8s %-8s\n", name(a[i]), name(b[i]), name(out[4 * i]),
                name(out[4 * i + 1]), name(out[4 * i + 2]), name(out[4 * i + 3]));
  return 0;
}
