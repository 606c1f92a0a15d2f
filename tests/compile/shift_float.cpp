// << and >> shift integer tiles only.
#include "tile/tl.hpp"
void kernel(tl::ptr<int> z) {
#ifdef CORRECT_TWIN
  auto x = tl::arange<4>();
#else
  auto x = tl::arange<4>() * 1.0f;
#endif
  tl::store(z + tl::arange<4>(), tl::cast<int>(x << 2));
}
