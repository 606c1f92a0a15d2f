// An atomic through a pointer to const does not compile: an atomic writes.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using bins_ptr = tl::ptr<int>;
#else
using bins_ptr = tl::ptr<const int>;
#endif
void kernel(bins_ptr bins) { tl::atomic_add(bins + tl::arange<16>() % 4, 1); }
