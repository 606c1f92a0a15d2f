#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0>
struct ConstantAdd;
}
namespace solutions {
template <int B0>
struct ConstantAdd;
}

namespace tp::bindings {

struct constant_add {
  static constexpr const char* id = "constant-add";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<128>>;
  template <class B>
  using stub = instantiate_t<puzzles::ConstantAdd, B>;
  template <class B>
  using solution = instantiate_t<solutions::ConstantAdd, B>;
};

}  // namespace tp::bindings
