// Seeded, signed, non-uniform inputs: the same seed gives the same values on every machine.
#pragma once

#include <cstdint>
#include <vector>

namespace tp {

// splitmix64, written out so that every standard library produces the same stream.
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();        // [0, 1)
  double normal();         // mean 0, deviation 1
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

// Mixes a base seed with case coordinates into an independent stream.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0);

// Mostly normal(0, scale) with rarer outliers of several times that, both signs, a sprinkling of
// exact zeros: relu, masks and max-subtraction all matter on such data.
void fill_signed(std::vector<float>& values, rng& random, double scale = 1.0);

}  // namespace tp
