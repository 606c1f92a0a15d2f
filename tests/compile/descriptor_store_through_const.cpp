// Storing through a tensor descriptor of a const tensor does not compile.
#include "tile/tl.hpp"
#ifdef CORRECT_TWIN
using output = tl::ptr<float>;
#else
using output = tl::ptr<const float>;
#endif
void kernel(tl::ptr<const float> x, output z, int M, int N) {
  auto xd = tl::make_tensor_descriptor(x, {M, N}, {N, 1}, tl::block_shape<16, 16>);
  auto zd = tl::make_tensor_descriptor(z, {M, N}, {N, 1}, tl::block_shape<16, 16>);
  zd.store({0, 0}, xd.load({0, 0}));
}
