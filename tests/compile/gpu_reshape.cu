// GPU backend: tl::reshape is not lowered yet and says so. Its twin unpacks with shifts and masks
// lane by lane, which the GPU backend compiles.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const int> w, tl::ptr<int> z) const {
    auto cols = tl::arange<B>();
    auto packed = tl::load(w + cols);
#ifdef CORRECT_TWIN
    tl::store(z + cols, ((packed >> 4) & 0xF) ^ (packed << 3));
#else
    tl::store(z + cols, tl::reshape<B>(tl::reshape<B / 2, 2>(packed)));
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const int> w, tl::ptr<int> z) { K{}(w, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const int>, tl::ptr<int>);
