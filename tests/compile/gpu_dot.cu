// GPU backend: tl::dot stages its operands through shared memory (cuda/dot.cuh); blocks whose
// operands need more than a block's 227 KiB fail to compile with a message that names dot and
// says what to change, never into other code. Here a [128, 256] @ [256, 128] needs 264 KiB; the
// twin's [128, 64] @ [64, 128] needs 66 KiB, past the 48 KiB of static shared memory, and
// compiles: the kernel's arena is dynamic shared memory (cuda/shared_arena.cuh).
#define TL_NUM_WARPS 16
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int depth = 64;
#else
constexpr int depth = 256;
#endif
template <int M, int N, int K>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z) const {
    auto a = tl::load(x + tl::arange<M>().col() * K + tl::arange<K>().row());
    auto b = tl::load(x + tl::arange<K>().col() * N + tl::arange<N>().row());
    tl::store(z + tl::arange<M>().col() * N + tl::arange<N>().row(), tl::dot(a, b));
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<128, 128, depth>>(tl::ptr<const float>, tl::ptr<float>);
