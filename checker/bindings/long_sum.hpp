#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct LongSum;
}
namespace solutions {
template <int B0, int B1>
struct LongSum;
}

namespace tp::bindings {

struct long_sum {
  static constexpr const char* id = "long-sum";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
  template <class B>
  using stub = instantiate_t<puzzles::LongSum, B>;
  template <class B>
  using solution = instantiate_t<solutions::LongSum, B>;
};

}  // namespace tp::bindings
