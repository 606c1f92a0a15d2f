// RowAxpy on the GPU (nvcc): tl::launch on the stream the extension passes, torch's current one.
// No torch here: the extension (row_axpy_ext.cpp) hands over device pointers.
#define TL_NUM_WARPS 4  // RowAxpy's num_warps: tl is built for one warp count per .cu file
#include "cuda/launch.cuh"
#include "row_axpy.hpp"  // examples/row_axpy/
#include "row_axpy_host.hpp"

namespace row_axpy {

void launch_on_gpu(const float* alpha, const float* x, const float* y, float* z, int rows,
                   int cols, void* stream) {
  // tl::launch_error is a std::runtime_error: the extension passes its reason on to Python.
  tl::launch<RowAxpy<block_rows, block_cols>>(tl::grid{tl::cdiv(rows, block_rows)},
                                              static_cast<cudaStream_t>(stream), alpha, x, y, z,
                                              rows, cols);
}

}  // namespace row_axpy
