// A tile keeps its dtype: a float expression does not become an int tile silently; tl::cast says so.
#include "tile/tl.hpp"
void kernel(tl::ptr<int> z) {
  auto x = tl::arange<4>() * 0.5f;
#ifdef CORRECT_TWIN
  tl::tile<int, 4> t = tl::cast<int>(x);
#else
  tl::tile<int, 4> t = x;
#endif
  tl::store(z + tl::arange<4>(), t);
}
