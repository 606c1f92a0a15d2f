#pragma once

#include "checker/binding.hpp"
#include "puzzles/vector_add.hpp"
#include "solutions/vector_add.hpp"

namespace tp::bindings {

struct vector_add {
  static constexpr const char* id = "vector-add";
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<256>>;
  template <class B>
  using stub = instantiate_t<puzzles::VectorAdd, B>;
  template <class B>
  using solution = instantiate_t<solutions::VectorAdd, B>;
};

}  // namespace tp::bindings
