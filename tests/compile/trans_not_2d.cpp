// tl::trans transposes 2-D tiles only: a 1-D tile needs its missing axis first.
#include "tile/tl.hpp"
void kernel(tl::ptr<const float> x, tl::ptr<float> z) {
  auto i = tl::arange<16>();
  auto v = tl::load(x + i);
#ifdef CORRECT_TWIN
  tl::store(z + i.col(), tl::trans(v.row()));  // [1, 16] -> [16, 1]
#else
  tl::store(z + i, tl::trans(v));
#endif
}
