// Storing through a pointer to const does not compile.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using output = tl::ptr<float>;
#else
using output = tl::ptr<const float>;
#endif
void kernel(tl::ptr<const float> x, output z) {
  auto offsets = tl::arange<16>();
  tl::store(z + offsets, tl::load(x + offsets));
}
