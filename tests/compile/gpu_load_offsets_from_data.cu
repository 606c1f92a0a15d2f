// GPU backend: a load whose pointer offsets use a data tile at a larger shape than its own is
// refused at compile time.
#include "tile/tl.hpp"
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto rows = tl::arange<8>();
    auto cols = tl::arange<B>();
    auto shift = tl::cast<int>(tl::load(x + cols));
    // The mask widens the load to [8, B]; the offsets are a [B] data tile.
#ifdef CORRECT_TWIN
    auto v = tl::load(x + shift, cols < B, 0.0f);
    tl::store(z + cols, v);
#else
    auto v = tl::load(x + shift, (rows.col() < 8) & (cols.row() < B), 0.0f);
    tl::store(z + rows.col() * B + cols.row(), v);
#endif
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const float>, tl::ptr<float>);
