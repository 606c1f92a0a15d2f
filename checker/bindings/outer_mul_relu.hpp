#pragma once

#include "checker/binding.hpp"
#include "puzzles/outer_mul_relu.hpp"
#include "solutions/outer_mul_relu.hpp"

namespace tp::bindings {

struct outer_mul_relu {
  static constexpr const char* id = "outer-mul-relu";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
  template <class B>
  using stub = instantiate_t<puzzles::OuterMulRelu, B>;
  template <class B>
  using solution = instantiate_t<solutions::OuterMulRelu, B>;
};

}  // namespace tp::bindings
