#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <class T, int B0, int B1, int D>
struct FlashAttention;
}
namespace solutions {
template <class T, int B0, int B1, int D>
struct FlashAttention;
}

namespace tp::bindings {

// A typed binding: each configuration names the element type (float16 or bfloat16) and the block
// sizes, and the signature follows the element type.
struct flash_attention {
  static constexpr const char* id = "flash-attention";
  template <class C, class T = typename C::element_type>
  using signature_for = void(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                             tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL);
  using configs = block_list<typed_blocks<tl::float16, 16, 16, 64>,
                             typed_blocks<tl::bfloat16, 32, 16, 64>,
                             typed_blocks<tl::float16, 16, 32, 128>,
                             typed_blocks<tl::bfloat16, 16, 16, 128>>;
  template <class C>
  using stub = instantiate_typed_t<puzzles::FlashAttention, C>;
  template <class C>
  using solution = instantiate_typed_t<solutions::FlashAttention, C>;
};

}  // namespace tp::bindings
