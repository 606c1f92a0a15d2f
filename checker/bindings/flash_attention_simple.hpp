#pragma once

#include "checker/binding.hpp"

// Declared, not included: each kernel compiles in its own module (checker/sim_module.cpp), so a
// stub that does not compile costs only its own puzzle.
namespace puzzles {
template <int B0, int B1>
struct FlashAttentionSimple;
}
namespace solutions {
template <int B0, int B1>
struct FlashAttentionSimple;
}

namespace tp::bindings {

struct flash_attention_simple {
  static constexpr const char* id = "flash-attention-simple";
  using signature = void(tl::ptr<const float> q, tl::ptr<const float> k, tl::ptr<const float> v,
                         tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 16>, blocks<8, 32>>;
  template <class B>
  using stub = instantiate_t<puzzles::FlashAttentionSimple, B>;
  template <class B>
  using solution = instantiate_t<solutions::FlashAttentionSimple, B>;
};

}  // namespace tp::bindings
