// A dot of int8 operands accumulates in int32: a float accumulator is refused (Triton's integer
// dot has an int32 result); the twin passes an int tile.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using Acc = int;
#else
using Acc = float;
#endif
void kernel(tl::ptr<const tl::int8> x, tl::ptr<Acc> z) {
  auto offsets = tl::arange<16>().col() * 16 + tl::arange<16>().row();
  auto a = tl::load(x + offsets);
  tl::tile<Acc, 16, 16> acc = 0;
  tl::store(z + offsets, tl::dot(a, a, acc));
}
