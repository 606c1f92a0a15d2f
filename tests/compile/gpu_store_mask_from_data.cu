// GPU backend: a store whose mask is a data tile at a larger shape than its own (an [8, 64] store
// masked by a [64] tile of loaded values) is refused at compile time, never compiled unmasked.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto rows = tl::arange<8>();
    auto cols = tl::arange<B>();
    auto v = tl::load(x + cols);
#ifdef CORRECT_TWIN
    tl::store(z + rows.col() * B + cols.row(), 1.0f, cols > 3);
#else
    tl::store(z + rows.col() * B + cols.row(), 1.0f, v > 0.0f);
#endif
    tl::store(z + cols, v);
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
