// The puzzles built for the GPU (`tilepuzzles_puzzle(stem GPU)` in CMakeLists.txt, which builds
// their GPU modules for `tilepuzzles check --gpu`): every puzzle.
// The GPU tests (tests/gpu/) run their solutions on the GPU and on its host emulation; a test
// checks this list against CMakeLists.txt's. The stubs are not compiled here: a learner's stub that
// does not compile must not break the test suite (each one is a module of its own).
#pragma once

#include <type_traits>

#include "checker/bindings/constant_add.hpp"
#include "checker/bindings/constant_add_block.hpp"
#include "checker/bindings/conv2d.hpp"
#include "checker/bindings/flash_attention.hpp"
#include "checker/bindings/flash_attention_simple.hpp"
#include "checker/bindings/long_softmax_2loop.hpp"
#include "checker/bindings/long_softmax_3loop.hpp"
#include "checker/bindings/long_sum.hpp"
#include "checker/bindings/matmul.hpp"
#include "checker/bindings/matmul_int4.hpp"
#include "checker/bindings/outer_add.hpp"
#include "checker/bindings/outer_add_block.hpp"
#include "checker/bindings/outer_mul_relu.hpp"
#include "checker/bindings/outer_mul_relu_backward.hpp"
#include "checker/bindings/softmax_fused.hpp"
#include "checker/bindings/vector_add.hpp"

#include "solutions/constant_add.hpp"
#include "solutions/constant_add_block.hpp"
#include "solutions/conv2d.hpp"
#include "solutions/flash_attention.hpp"
#include "solutions/flash_attention_simple.hpp"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/long_sum.hpp"
#include "solutions/matmul.hpp"
#include "solutions/matmul_int4.hpp"
#include "solutions/outer_add.hpp"
#include "solutions/outer_add_block.hpp"
#include "solutions/outer_mul_relu.hpp"
#include "solutions/outer_mul_relu_backward.hpp"
#include "solutions/softmax_fused.hpp"
#include "solutions/vector_add.hpp"

namespace tp::gpu_tests {

// Whether a puzzle's solution with these blocks compiles with W warps: matmul-int4 with B0 = 32
// and B_MID = 128 unpacks a [32, 16, 8] int tile, which one warp would hold in 256 registers per
// thread (the blocked layout leaves one lane bit unused for its 8 columns): the GPU backend
// refuses that at compile time (tests/compile/gpu_tile_too_large.cu), so it runs with 2 warps
// and more.
template <class Binding, class Blocks, int W>
inline constexpr bool fits_with_warps =
    !(std::is_same_v<Binding, bindings::matmul_int4> && W == 1 &&
      std::is_same_v<Blocks, blocks<32, 16, 128>>);

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
  f.template operator()<bindings::matmul>();
  f.template operator()<bindings::matmul_int4>();
  f.template operator()<bindings::flash_attention>();
}

}  // namespace tp::gpu_tests
