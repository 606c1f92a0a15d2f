// RowAxpy on the GPU, one thread block per program, against the same arithmetic on the CPU.
// Exit status: 0 when they agree, 1 when they do not or CUDA fails, 77 where there is no GPU
// (ctest's skip).
#define TL_NUM_WARPS 4  // RowAxpy's num_warps: tl is built for one warp count per .cu file
#include "cuda/launch.cuh"
#include "row_axpy.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA GPU here: skipped\n");
    return 77;
  }
  constexpr int BR = 8, BC = 128;
  const int rows = 1000, cols = 777;  // neither a multiple of the block sizes
  std::vector<float> alpha(rows), x(rows * cols), y(rows * cols), z(rows * cols);
  for (int r = 0; r < rows; ++r) alpha[r] = 0.5f + 0.001f * r;
  for (int i = 0; i < rows * cols; ++i) {
    x[i] = static_cast<float>((i * 37) % 101) * 0.01f - 0.5f;
    y[i] = static_cast<float>((i * 53) % 89) * -0.02f + 0.7f;
  }

  float *alpha_d = nullptr, *x_d = nullptr, *y_d = nullptr, *z_d = nullptr;
  const size_t matrix_bytes = sizeof(float) * rows * cols;
  cudaStream_t stream = nullptr;
  if (!cuda_ok(cudaMalloc(&alpha_d, sizeof(float) * rows), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&x_d, matrix_bytes), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&y_d, matrix_bytes), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&z_d, matrix_bytes), "cudaMalloc") ||
      !cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate"))
    return 1;
  cudaMemcpy(alpha_d, alpha.data(), sizeof(float) * rows, cudaMemcpyHostToDevice);
  cudaMemcpy(x_d, x.data(), matrix_bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(y_d, y.data(), matrix_bytes, cudaMemcpyHostToDevice);

  // Device pointers go where the kernel takes tl::ptr (const float* for tl::ptr<const float>),
  // numbers where it takes int.
  tl::launch<RowAxpy<BR, BC>>(tl::grid{tl::cdiv(rows, BR)}, stream,
                              static_cast<const float*>(alpha_d), static_cast<const float*>(x_d),
                              static_cast<const float*>(y_d), z_d, rows, cols);
  if (!cuda_ok(cudaStreamSynchronize(stream), "running RowAxpy") ||
      !cuda_ok(cudaMemcpy(z.data(), z_d, matrix_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"))
    return 1;

  // nvcc may fuse the GPU's product and sum into one fused multiply-add, which rounds once
  // where the CPU rounds twice: the two agree within an ulp of the product and of the sum.
  int wrong = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int i = r * cols + c;
      const float product = alpha[r] * x[i], expected = product + y[i];
      const float tolerance = 1e-6f * (std::fabs(product) + std::fabs(y[i]));
      if (!(std::fabs(z[i] - expected) <= tolerance) && wrong++ < 5)
        std::fprintf(stderr, "z[%d, %d] = %g, expected %g\n", r, c, z[i], expected);
    }
  cudaFree(alpha_d);
  cudaFree(x_d);
  cudaFree(y_d);
  cudaFree(z_d);
  cudaStreamDestroy(stream);
  if (wrong) {
    std::fprintf(stderr, "%d of %d elements differ from the CPU's\n", wrong, rows * cols);
    return 1;
  }
  std::printf("RowAxpy on the GPU matches the CPU on %d x %d\n", rows, cols);
  return 0;
}
