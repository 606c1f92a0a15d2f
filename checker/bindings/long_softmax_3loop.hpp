#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct LongSoftmax3Loop;
}
namespace solutions {
template <int B0, int B1>
struct LongSoftmax3Loop;
}

namespace tp::bindings {

struct long_softmax_3loop {
  static constexpr const char* id = "long-softmax-3loop";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
  template <class B>
  using stub = instantiate_t<puzzles::LongSoftmax3Loop, B>;
  template <class B>
  using solution = instantiate_t<solutions::LongSoftmax3Loop, B>;
};

}  // namespace tp::bindings
