// GPU backend: tl::dot with tl::tf32 stages its operands through swizzled shared memory for the
// tensor cores (cuda/mma.cuh); blocks whose operands need more than a block's 227 KiB fail to
// compile with a message that names dot and the tensor cores, never into other code. Here a
// [128, 256] @ [256, 128] needs 256 KiB of TF32 words; the twin's [128, 64] @ [64, 128] needs
// 64 KiB. Built for sm_75 (tests/CMakeLists.txt), the twin fails too: mma.sync on TF32 needs sm_80.
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
    tl::store(z + tl::arange<M>().col() * N + tl::arange<N>().row(), tl::dot(a, b, tl::tf32));
  }
};
template <class K>
__global__ void run(tl::ptr<const float> x, tl::ptr<float> z) { K{}(x, z); }
template __global__ void run<Kernel<128, 128, depth>>(tl::ptr<const float>, tl::ptr<float>);
