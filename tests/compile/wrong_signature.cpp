// A kernel whose parameters differ from the puzzle's does not compile.
#include "checker/binding.hpp"
template <int B0>
struct VectorAdd {
  static constexpr int num_warps = 4;
#ifdef CORRECT_TWIN
  void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0) const {}
#else
  void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {}
#endif
};
using signature = void(tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int);
template void tp::check_kernel_signature<VectorAdd<32>, signature>();
