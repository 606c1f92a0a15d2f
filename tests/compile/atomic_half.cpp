// Atomics take float32 and int32 elements only: a float16 one does not compile.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using element = float;
#else
using element = tl::float16;
#endif
void kernel(tl::ptr<element> z) { tl::atomic_max(z + tl::arange<16>(), 1.0f); }
