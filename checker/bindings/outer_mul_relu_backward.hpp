#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct OuterMulReluBackward;
}
namespace solutions {
template <int B0, int B1>
struct OuterMulReluBackward;
}

namespace tp::bindings {

struct outer_mul_relu_backward {
  static constexpr const char* id = "outer-mul-relu-backward";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<const float> dz,
                         tl::ptr<float> dx, int N0, int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
  template <class B>
  using stub = instantiate_t<puzzles::OuterMulReluBackward, B>;
  template <class B>
  using solution = instantiate_t<solutions::OuterMulReluBackward, B>;
};

}  // namespace tp::bindings
