// GPU backend: a layout conversion that needs more than 48 KiB of shared memory fails to compile
// with a message that says what to change. Here a loaded [128, 128] tile is added to a declared
// accumulator (the mma layout): the loaded tile moves through 64 KiB of shared memory. The twin's
// [64, 128] tile needs 32 KiB and compiles.
#define TL_NUM_WARPS 16
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int rows = 64;
#else
constexpr int rows = 128;
#endif
template <int B0, int B1>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto offsets = tl::arange<B0>().col() * B1 + tl::arange<B1>().row();
    tl::tile<float, B0, B1> acc = 1.0f;
    acc = acc + tl::load(x + offsets);
    tl::store(z + offsets, acc);
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<rows, 128>>(tl::ptr<const float>, tl::ptr<float>);
