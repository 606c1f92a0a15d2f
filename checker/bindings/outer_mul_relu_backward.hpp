#pragma once

#include "checker/binding.hpp"
#include "puzzles/outer_mul_relu_backward.hpp"
#include "solutions/outer_mul_relu_backward.hpp"

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
