// tl::rand's offsets are an int32 tile: one counter per element.
#include "tile/tl.hpp"
void kernel(tl::ptr<float> z, int seed) {
#ifdef CORRECT_TWIN
  auto offsets = tl::arange<8>();
#else
  auto offsets = tl::arange<8>() * 1.0f;
#endif
  tl::store(z + tl::arange<8>(), tl::rand(seed, offsets));
}
