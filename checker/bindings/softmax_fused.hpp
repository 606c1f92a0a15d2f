#pragma once

#include "checker/binding.hpp"
#include "puzzles/softmax_fused.hpp"
#include "solutions/softmax_fused.hpp"

namespace tp::bindings {

struct softmax_fused {
  static constexpr const char* id = "softmax-fused";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 256>, blocks<4, 512>>;
  template <class B>
  using stub = instantiate_t<puzzles::SoftmaxFused, B>;
  template <class B>
  using solution = instantiate_t<solutions::SoftmaxFused, B>;
};

}  // namespace tp::bindings
