#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct SoftmaxFused;
}
namespace solutions {
template <int B0, int B1>
struct SoftmaxFused;
}

namespace tp::bindings {

struct softmax_fused {
  static constexpr const char* id = "softmax-fused";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 256>, blocks<4, 512>>;
  template <class B>
  using stub = instantiate_t<puzzles::SoftmaxFused, B>;
  template <class B>
  using solution = instantiate_t<solutions::SoftmaxFused, B>;
};

}  // namespace tp::bindings
