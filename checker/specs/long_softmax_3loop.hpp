// Puzzle 9: the row-wise softmax of a long x[N0, T] in three passes (the cases are puzzle 10's,
// checker/specs/common.cpp).
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(LongSoftmax3Loop, int B0, int B1)

namespace tp::bindings {

struct long_softmax_3loop
    : puzzle_binding<long_softmax_3loop, puzzles::LongSoftmax3Loop, solutions::LongSoftmax3Loop> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T);
  using configs = block_list<blocks<1, 32>, blocks<4, 64>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::long_softmax_3loop {

void describe(puzzle_spec& s) {
  describe_long_softmax(s, 3);
}

}  // namespace tp::specs::long_softmax_3loop
#endif  // TILEPUZZLES_SPEC
