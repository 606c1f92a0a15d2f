// GPU backend: a layout conversion that needs more shared memory than a block has (227 KiB)
// fails to compile with a message that says what to change. Here a loaded [256, 256] tile is added
// to a declared accumulator (the mma layout): the loaded tile moves through 260 KiB of shared
// memory. The twin's [128, 256] tile needs 130 KiB, past the 48 KiB of static shared memory, and
// compiles: the kernel's arena is dynamic shared memory (cuda/shared_arena.cuh).
#define TL_NUM_WARPS 16
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int rows = 128;
#else
constexpr int rows = 256;
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
template __global__ void run<Kernel<rows, 256>>(tl::ptr<const float>, tl::ptr<float>);
