// The puzzles built for the GPU (`gpu` in their line of checker/puzzle_list.def, which builds their
// GPU modules for `tilepuzzles check --gpu`): every puzzle.
// The GPU tests (tests/gpu/) run their solutions on the GPU and on its host emulation; a test
// checks these against the list. The stubs are not compiled here: a learner's stub that does not
// compile must not break the test suite (each one is a module of its own).
#pragma once

#include <tilepuzzles/every_puzzle.hpp>

#include <type_traits>

#include "checker/puzzle_list.hpp"

namespace tp::gpu_tests {

// Whether a puzzle's solution with these blocks compiles with W warps. The GPU backend refuses a
// tile that needs more than 128 registers in every thread (tests/compile/gpu_tile_too_large.cu),
// and two block sizes need more than one warp:
// - matmul-int4 with B0 = 32 and B_MID = 128 unpacks a [32, 16, 8] int tile, which one warp would
//   hold in 256 registers per thread (the blocked layout leaves one lane bit unused for its 8
//   columns);
// - outer-add's large block, 128 x 64, is a [64, 128] float tile: 256 registers per thread in
//   one warp;
// - paged-attention's large block, 64 positions of a head of up to 128, loads [64, 128] keys.
// They run with 2 warps and more. The host emulation compiles only some block sizes with one
// warp (runs_with_other_warps in kernels.inc), so only the GPU build meets this list.
template <class Binding, class Blocks, int W>
inline constexpr bool fits_with_warps =
    W > 1 || !((std::is_same_v<Binding, bindings::matmul_int4> &&
                std::is_same_v<Blocks, blocks<32, 16, 128>>) ||
               (std::is_same_v<Binding, bindings::outer_add> &&
                std::is_same_v<Blocks, blocks<128, 64>>) ||
               (std::is_same_v<Binding, bindings::paged_attention> &&
                std::is_same_v<Blocks, blocks<64, 128>>));

// Calls f.template operator()<Binding>() for each puzzle built for the GPU whose number is
// Remainder modulo Modulus (the GPU tests build their halves in two units).
template <int Modulus, int Remainder, class F>
void for_each_gpu_puzzle(F&& f) {
#define TP_PUZZLE(number, stem, id, title, backend, ...)                    \
  if constexpr (puzzle_list_detail::backend && number % Modulus == Remainder) \
    f.template operator()<bindings::stem>();
#include "checker/puzzle_list.def"
#undef TP_PUZZLE
}

}  // namespace tp::gpu_tests
