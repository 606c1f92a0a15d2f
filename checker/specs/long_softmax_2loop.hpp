// Puzzle 10: the row-wise softmax of a long x[N0, T] in two passes (the cases are puzzle 9's,
// checker/specs/common.cpp).
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(LongSoftmax2Loop, int B0, int B1)

namespace tp::bindings {

struct long_softmax_2loop
    : puzzle_binding<long_softmax_2loop, puzzles::LongSoftmax2Loop, solutions::LongSoftmax2Loop> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::long_softmax_2loop {

void describe(puzzle_spec& s) {
  describe_long_softmax(s, 2);
}

}  // namespace tp::specs::long_softmax_2loop
#endif  // TILEPUZZLES_SPEC
