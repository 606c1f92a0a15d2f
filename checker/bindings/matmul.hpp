#pragma once

#include "checker/binding.hpp"
#include "puzzles/matmul.hpp"
#include "solutions/matmul.hpp"

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
