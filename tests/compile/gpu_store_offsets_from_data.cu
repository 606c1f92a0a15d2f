// GPU backend: a store whose pointer offsets use a data tile at a larger shape than its own is
// refused at compile time.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto rows = tl::arange<8>();
    auto cols = tl::arange<B>();
    auto shift = tl::cast<int>(tl::load(x + cols));
    // The mask widens the store to [8, B]; the offsets are a [B] data tile.
#ifdef CORRECT_TWIN
    tl::store(z + shift, 1.0f, cols < B);
#else
    tl::store(z + shift, 1.0f, (rows.col() < 8) & (cols.row() < B));
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
