// GPU backend: tl::print is simulator-only, so a kernel that prints does not compile for the GPU,
// with a message that says so; its twin keeps the print out of the GPU build, as docs/tl.md shows.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto cols = tl::arange<B>();
    auto v = tl::load(x + cols);
#ifdef CORRECT_TWIN
#ifndef __CUDACC__
    tl::print("v", v);
#endif
#else
    tl::print("v", v);
#endif
    tl::store(z + cols, v);
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
