#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0>
struct VectorAdd;
}
namespace solutions {
template <int B0>
struct VectorAdd;
}

namespace tp::bindings {

struct vector_add {
  static constexpr const char* id = "vector-add";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<256>>;
  template <class B>
  using stub = instantiate_t<puzzles::VectorAdd, B>;
  template <class B>
  using solution = instantiate_t<solutions::VectorAdd, B>;
};

}  // namespace tp::bindings
