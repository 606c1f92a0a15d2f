#pragma once

#include "checker/binding.hpp"
#include "puzzles/long_softmax_2loop.hpp"
#include "solutions/long_softmax_2loop.hpp"

namespace tp::bindings {

struct long_softmax_2loop {
  static constexpr const char* id = "long-softmax-2loop";
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
  template <class B>
  using stub = instantiate_t<puzzles::LongSoftmax2Loop, B>;
  template <class B>
  using solution = instantiate_t<solutions::LongSoftmax2Loop, B>;
};

}  // namespace tp::bindings
