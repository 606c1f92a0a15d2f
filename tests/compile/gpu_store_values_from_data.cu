// GPU backend: storing a data tile through pointers of a larger shape (a [64] tile into [8, 64])
// is refused at compile time.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto rows = tl::arange<8>();
    auto cols = tl::arange<B>();
    auto v = tl::load(x + cols);
#ifdef CORRECT_TWIN
    tl::store(z + cols, v);
#else
    tl::store(z + rows.col() * B + cols.row(), v);
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
