// A tile dimension that is not a power of two does not compile.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int N = 4;
#else
constexpr int N = 3;
#endif
void kernel(tl::ptr<const float> x, tl::ptr<float> z) {
  auto offsets = tl::arange<N>();
  tl::store(z + offsets, tl::load(x + offsets));
}
