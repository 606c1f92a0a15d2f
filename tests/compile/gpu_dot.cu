// GPU backend: tl::dot has no GPU lowering yet; a kernel that uses it fails to compile for the GPU
// with a message that says so, never into other code. Its twin without dot compiles.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto offsets = tl::arange<B>().col() * B + tl::arange<B>().row();
    auto a = tl::load(x + offsets);
#ifdef CORRECT_TWIN
    tl::store(z + offsets, a * a);
#else
    tl::store(z + offsets, tl::dot(a, a));
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<16>>(tl::ptr<const float>, tl::ptr<float>);
