// GPU backend: half-precision tiles are not lowered yet; a kernel that loads one does not compile,
// and the message names the type. Its float twin compiles.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using element = float;
#else
using element = tl::float16;
#endif
template <int B>
struct Kernel {
  TL_KERNEL void operator()(tl::ptr<const element> x, tl::ptr<element> z) const {
    auto cols = tl::arange<B>();
    tl::store(z + cols, tl::load(x + cols));
  }
};
template <class K>
__global__ void run(tl::ptr<const element> x, tl::ptr<element> z) { K{}(x, z); }
template __global__ void run<Kernel<64>>(tl::ptr<const element>, tl::ptr<element>);
