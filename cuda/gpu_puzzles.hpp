// The puzzles built for the GPU: every puzzle whose kernels need no tl::dot. cuda/kernels.cu
// registers them for `tilepuzzles check --gpu`; the GPU tests (tests/gpu/) run them on the GPU
// and on its host emulation. A puzzle added to the curriculum that needs no dot goes here.
#pragma once

#include <map>
#include <string>

#include "checker/bindings/constant_add.hpp"
#include "checker/bindings/constant_add_block.hpp"
#include "checker/bindings/conv2d.hpp"
#include "checker/bindings/flash_attention_simple.hpp"
#include "checker/bindings/long_softmax_2loop.hpp"
#include "checker/bindings/long_softmax_3loop.hpp"
#include "checker/bindings/long_sum.hpp"
#include "checker/bindings/outer_add.hpp"
#include "checker/bindings/outer_add_block.hpp"
#include "checker/bindings/outer_mul_relu.hpp"
#include "checker/bindings/outer_mul_relu_backward.hpp"
#include "checker/bindings/softmax_fused.hpp"
#include "checker/bindings/vector_add.hpp"

namespace tp::gpu {

// Calls f.template operator()<Binding>() for each puzzle built for the GPU.
template <class F>
void for_each_gpu_puzzle(F&& f) {
  f.template operator()<bindings::constant_add>();
  f.template operator()<bindings::constant_add_block>();
  f.template operator()<bindings::vector_add>();
  f.template operator()<bindings::outer_add>();
  f.template operator()<bindings::outer_add_block>();
  f.template operator()<bindings::outer_mul_relu>();
  f.template operator()<bindings::outer_mul_relu_backward>();
  f.template operator()<bindings::long_sum>();
  f.template operator()<bindings::long_softmax_3loop>();
  f.template operator()<bindings::long_softmax_2loop>();
  f.template operator()<bindings::softmax_fused>();
  f.template operator()<bindings::flash_attention_simple>();
  f.template operator()<bindings::conv2d>();
}

// The puzzles that are not, and why.
inline std::map<std::string, std::string> puzzles_not_on_the_gpu() {
  return {{"matmul", "it needs tl::dot, which the GPU backend does not have yet"}};
}

}  // namespace tp::gpu
