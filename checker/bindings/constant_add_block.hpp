#pragma once

#include "checker/binding.hpp"
#include "puzzles/constant_add_block.hpp"
#include "solutions/constant_add_block.hpp"

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
