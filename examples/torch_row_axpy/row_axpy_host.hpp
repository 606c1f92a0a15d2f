// What the PyTorch extension (row_axpy_ext.cpp) calls, with no torch and no CUDA in sight: plain
// pointers and sizes in, the simulator's findings out. row_axpy_sim.cpp (g++, the simulator) and
// row_axpy_gpu.cu (nvcc, the GPU) define these functions, so both can be built and tested
// without torch, and the torch side stays a thin layer of tensor checks.
#pragma once

#include <array>
#include <string>

namespace row_axpy {

// The kernels the simulator can run: RowAxpy (examples/row_axpy/row_axpy.hpp), and a twin with a
// planted bug (examples/row_axpy/planted_bug.hpp) that only the simulator ever runs.
enum class kernel { row_axpy, masking_columns_only };

// What tl::simulate found, flattened for Python.
struct simulated {
  bool clean = true;
  std::string kind;    // "" when clean, else a tl::sim::kind: "out-of-bounds", ...
  std::string report;  // "clean", or the diagnostic's whole message (several lines)
  std::array<int, 3> program{-1, -1, -1};  // the program that went wrong
  std::string buffer;  // the tensor it went wrong on: "alpha", "x", "y" or "z"
  std::string source;  // the kernel's file and line
  long long programs_run = 0;
  long long x_loads = 0;   // active lanes loaded from x
  long long z_stores = 0;  // active lanes stored to z
};

// The block sizes of both sides: RowAxpy<block_rows, block_cols>, one program per block_rows
// rows.
inline constexpr int block_rows = 8;
inline constexpr int block_cols = 128;

// z[r, c] = alpha[r] * x[r, c] + y[r, c] for row-major rows x cols matrices, in the simulator,
// every check on. `order` is "forward", "reverse" or "shuffle" (with `seed`); another name throws
// std::invalid_argument. z is written in place (set to NaN first: what the kernel leaves
// unwritten shows).
simulated simulate(kernel which, const float* alpha, const float* x, const float* y, float* z,
                   int rows, int cols, const std::string& order, unsigned long long seed);

// The same on the GPU: device pointers, queued on `stream` (a cudaStream_t; void* here so that
// this header needs no CUDA). Returns once the launch is queued. Throws std::runtime_error with
// CUDA's reason where the launch cannot start. Defined only in builds with CUDA.
void launch_on_gpu(const float* alpha, const float* x, const float* y, float* z, int rows,
                   int cols, void* stream);

}  // namespace row_axpy
