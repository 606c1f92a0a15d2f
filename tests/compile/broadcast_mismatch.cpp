// Shapes that cannot broadcast do not compile: [4] + [8] has no common shape; [4, 1] + [1, 8] does.
#include "tile/tl.hpp"
void kernel(tl::ptr<float> z) {
#ifdef CORRECT_TWIN
  auto offsets = tl::arange<4>().col() * 8 + tl::arange<8>().row();
#else
  auto offsets = tl::arange<4>() * 8 + tl::arange<8>();
#endif
  tl::store(z + offsets, 1.0f);
}
