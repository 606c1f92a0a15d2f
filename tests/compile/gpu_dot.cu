// GPU backend: tl::dot stages its operands through shared memory (cuda/dot.cuh); blocks whose
// operands need more than 48 KiB fail to compile with a message that names dot and says what to
// change, never into other code. Here a [64, 128] @ [128, 64] needs 68 KiB; the twin's
// [64, 32] @ [32, 64] needs 17 KiB and compiles.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int depth = 32;
#else
constexpr int depth = 128;
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
template __global__ void run<Kernel<64, 64, depth>>(tl::ptr<const float>, tl::ptr<float>);
