// tl::dot needs every dimension to be at least 16.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int B = 16;
#else
constexpr int B = 8;
#endif
void kernel(tl::ptr<const float> x, tl::ptr<float> z) {
  auto offsets = tl::arange<B>().col() * B + tl::arange<B>().row();
  auto a = tl::load(x + offsets);
  tl::store(z + offsets, tl::dot(a, a));
}
