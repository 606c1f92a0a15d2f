// tl::tf32 is the input precision of float32 operands: a dot of float16 operands that asks for it
// is refused (its tensor-core product needs no option); the twin asks it of float32 operands.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using T = float;
#else
using T = tl::float16;
#endif
void kernel(tl::ptr<const T> x, tl::ptr<float> z) {
  auto offsets = tl::arange<16>().col() * 16 + tl::arange<16>().row();
  auto a = tl::load(x + offsets);
  tl::store(z + offsets, tl::dot(a, a, tl::tf32));
}
