// Every operation of docs/tl.md compiles for the GPU (tests/kernels/every_op.hpp), through the
// same kind of __global__ wrapper the checker launches.
#include "tests/kernels/every_op.hpp"
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z, int n) { K{}(x, z, n); }
template __global__ void run<test_kernels::EveryOp<4, 8>>(tl::ptr<const float>, tl::ptr<float>,
                                                          int);
template __global__ void run<test_kernels::EveryOp<1, 64>>(tl::ptr<const float>, tl::ptr<float>,
                                                           int);
