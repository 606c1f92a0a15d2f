#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct Conv2d;
}
namespace solutions {
template <int B0, int B1>
struct Conv2d;
}

namespace tp::bindings {

struct conv2d {
  static constexpr const char* id = "conv2d";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z, int N0,
                         int H, int W, int KH, int KW);
  using configs = block_list<blocks<8, 8>, blocks<16, 4>>;
  template <class B>
  using stub = instantiate_t<puzzles::Conv2d, B>;
  template <class B>
  using solution = instantiate_t<solutions::Conv2d, B>;
};

}  // namespace tp::bindings
