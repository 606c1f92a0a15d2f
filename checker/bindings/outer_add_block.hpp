#pragma once

#include "checker/binding.hpp"
#include "puzzles/outer_add_block.hpp"
#include "solutions/outer_add_block.hpp"

namespace tp::bindings {

struct outer_add_block {
  static constexpr const char* id = "outer-add-block";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0,
                         int N1);
  using configs = block_list<blocks<32, 32>, blocks<64, 16>>;
  template <class B>
  using stub = instantiate_t<puzzles::OuterAddBlock, B>;
  template <class B>
  using solution = instantiate_t<solutions::OuterAddBlock, B>;
};

}  // namespace tp::bindings
