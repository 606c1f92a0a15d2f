// GPU backend: a load whose mask is a data tile at a larger shape than its own is refused at
// compile time.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto rows = tl::arange<8>();
    auto cols = tl::arange<B>();
    auto v = tl::load(x + cols);
    auto offsets = rows.col() * B + cols.row();
#ifdef CORRECT_TWIN
    tl::store(z + offsets, tl::load(x + offsets, cols > 3, 0.0f));
#else
    tl::store(z + offsets, tl::load(x + offsets, v > 0.0f, 0.0f));
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
