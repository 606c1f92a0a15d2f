#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1, int B_MID>
struct MatmulInt4;
}
namespace solutions {
template <int B0, int B1, int B_MID>
struct MatmulInt4;
}

namespace tp::bindings {

struct matmul_int4 {
  static constexpr const char* id = "matmul-int4";
  using signature = void(tl::ptr<const float> scale, tl::ptr<const int> zero,
                         tl::ptr<const int> weight, tl::ptr<const float> activation,
                         tl::ptr<float> z, int N0, int N1, int MID);
  using configs = block_list<blocks<16, 16, 64>, blocks<32, 16, 128>>;
  template <class B>
  using stub = instantiate_t<puzzles::MatmulInt4, B>;
  template <class B>
  using solution = instantiate_t<solutions::MatmulInt4, B>;
};

}  // namespace tp::bindings
