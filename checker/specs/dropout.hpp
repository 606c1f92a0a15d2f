// Puzzle 30: dropout, y = x * keep / (1 - p) with keep = rand(seed, offset) > p, over x[N0].
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Dropout, int B0)

namespace tp::bindings {

struct dropout : puzzle_binding<dropout, puzzles::Dropout, solutions::Dropout> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> p, tl::ptr<float> y, int N0,
                         int seed);
  using configs = block_list<blocks<64>, blocks<1024>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"
#include "tile/math/philox.hpp"

namespace tp::specs::dropout {

// The probability of dropping an element, p's one value. (The checker passes int scalars only:
// p travels as a tensor of one float, the seed as an int.)
constexpr float usual_p = 0.25f;
case_fill drop_probability(float p) {
  return [p](std::vector<float>& values, const std::vector<long long>&, rng&) { values[0] = p; };
}

// y[i] = x[i] / (1 - p) where tl::rand(seed, i) > p, else 0; the mask from the very function
// tl::rand computes (tile/math/philox.hpp), so that it is exact, and the rest in double.
void reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const int N0 = n[0], seed = n[1];
  const float p = t[1].values[0];
  Eigen::ArrayXd y(N0);
  for (int i = 0; i < N0; ++i) {
    const float random = tl::math::uniform_float_of(tl::math::philox_of(seed, i).w[0]);
    y[i] = random > p ? t[0].values[i] / (1.0 - static_cast<double>(p)) : 0.0;
  }
  set_from(t[2], y);
}

void describe(puzzle_spec& s) {
  s.summary = "y[i] = x[i] / (1 - p) where tl::rand(seed, i) > p, else 0, over N0 elements, B0 "
              "per program; p a one-float input, seed an int";
  s.size_names = {"N0", "seed"};
  s.block_names = {"B0"};
  s.cases = {
      {{1, 0}, "One element, seed 0, p = 0.25: every lane of the only program but one is masked "
               "off."},
      {{2, 1}, "Two elements in one partial block, seed 1."},
      {{3, 2}, "Three elements in one partial block, seed 2."},
      // Catches offsets within the block (the same mask in every program) and one random number
      // per program (a whole block kept or dropped).
      {{1000, 12345},
       "1000 elements, seed 12345: 16 programs of 64 (or one of 1024), each element its own "
       "random number."},
      // Catches a scale by p instead of 1 - p (p = 0.25 and 1 - p = 0.75 differ threefold), and
      // keep as rand < p.
      {{4099, 42},
       "4099 = 2^12 + 3 elements, seed 42, p = 0.25: a ragged last block for every B0."},
      // Catches a division by p (by zero) and a mask that drops anything at p = 0.
      {{4099, 7}, "p = 0: every element is kept and y = x.", {{"p", drop_probability(0.0f)}}},
      // Catches 1 - p rounded or clamped on the way: every kept element is scaled by 1000.
      {{20011, 99},
       "p = 0.999, close to 1: about 20 of 20011 elements are kept, each scaled by 1 / (1 - p), "
       "about 1000.",
       {{"p", drop_probability(0.999f)}}},
      // Catches a seed left out or replaced: the mask of seed 0 is not this one's.
      {{4099, 2147483647},
       "Seed 2^31 - 1, the largest int, p = 0.75: a mask unlike seed 0's.",
       {{"p", drop_probability(0.75f)}}},
      // Catches a loop bound, an array or a count of programs hard-coded up to 2^20.
      large_case({1048579, 31337},
                 "The large tier: 1048579 = 2^20 + 3 elements, 16385 or 1025 programs, seed "
                 "31337, a ragged last block."),
  };
  s.blocked_sizes = {{0, 0}};
  auto n0 = sizes_at({0});
  s.tensors = {{"x", false, n0, signed_fill()},
               {"p", false, [](const std::vector<int>&) { return std::vector<long long>{1}; },
                [](std::vector<float>& values, rng&) { values[0] = usual_p; }},
               {"y", true, n0, nullptr}};
  s.size_bounds = {{2147483647, 2147483647}, {2147483647, 0}};
  s.size_bounds_rule = "N0 < 2^31 (the seed: any int)";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = reference;
  // One division in float (div.full.f32 on the GPU: 2 ulp), and 1 - p rounded to float.
  s.rtol = 1e-6;
  s.atol = 1e-6;
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"y"}, 1)};
}

}  // namespace tp::specs::dropout
#endif  // TILEPUZZLES_SPEC
