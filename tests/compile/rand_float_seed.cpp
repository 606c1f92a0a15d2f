// tl::randn's seed is an int scalar, as Triton's.
#include "tile/tl.hpp"
void kernel(tl::ptr<float> z, float p) {
#ifdef CORRECT_TWIN
  const int seed = 7;
#else
  const float seed = p;
#endif
  tl::store(z + tl::arange<8>(), tl::randn(seed, tl::arange<8>()));
}
