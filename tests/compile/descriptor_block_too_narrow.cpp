// A descriptor's block rows span at least 16 bytes, as the copy engine moves them.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
constexpr int columns = 8;  // 8 float16: 16 bytes
#else
constexpr int columns = 4;  // 4 float16: 8 bytes
#endif
void kernel(tl::ptr<const tl::float16> x, int M, int N) {
  auto xd = tl::make_tensor_descriptor(x, {M, N}, {N, 1}, tl::block_shape<16, columns>);
  (void)xd;
}
