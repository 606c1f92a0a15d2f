#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1, int B_MID>
struct Matmul;
}
namespace solutions {
template <int B0, int B1, int B_MID>
struct Matmul;
}

namespace tp::bindings {

struct matmul {
  static constexpr const char* id = "matmul";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1, int N2, int MID);
  using configs = block_list<blocks<16, 16, 16>, blocks<32, 16, 32>>;
  template <class B>
  using stub = instantiate_t<puzzles::Matmul, B>;
  template <class B>
  using solution = instantiate_t<solutions::Matmul, B>;
};

}  // namespace tp::bindings
