// Every operation of docs/tl.md compiles for the GPU (tests/kernels/every_op.hpp), through the
// same kind of __global__ wrapper the checker launches, optimized and assembled by ptxas for the
// build's first architecture: a [1, 64] tile over 4 warps, half of whose threads hold copies. The
// GPU tests' unit of 4-warp kernels (kernels_w4.cu, unoptimized PTX in a build without a GPU)
// compiles EveryOp<4, 8> already.
#include "tests/kernels/every_op.hpp"
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z, int n) { K{}(x, z, n); }
template __global__ void run<test_kernels::EveryOp<1, 64>>(tl::ptr<const float>, tl::ptr<float>,
                                                           int);
