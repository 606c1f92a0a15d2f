#pragma once

#include "checker/binding.hpp"
#include "puzzles/constant_add.hpp"
#include "solutions/constant_add.hpp"

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
