#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0>
struct ConstantAddBlock;
}
namespace solutions {
template <int B0>
struct ConstantAddBlock;
}

namespace tp::bindings {

struct constant_add_block {
  static constexpr const char* id = "constant-add-block";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<64>>;
  template <class B>
  using stub = instantiate_t<puzzles::ConstantAddBlock, B>;
  template <class B>
  using solution = instantiate_t<solutions::ConstantAddBlock, B>;
};

}  // namespace tp::bindings
