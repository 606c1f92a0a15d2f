#include "checker/inputs.hpp"

#include <cmath>

namespace tp {

std::uint64_t rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double rng::normal() {
  // Box-Muller with one output per call: simple and reproducible.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  rng r(seed * 0x100000001b3ull ^ (a + 0x632be59bd9b4e019ull) * 0x9e3779b97f4a7c15ull ^
        (b + 0x85ebca6b) * 0xc2b2ae3d27d4eb4full);
  return r.next();
}

void fill_signed(std::vector<float>& values, rng& random, double scale) {
  for (float& v : values) {
    const double pick = random.uniform();
    double x = random.normal();
    if (pick < 0.05) x *= 4.0;        // outliers
    else if (pick < 0.07) x = 0.0;    // exact zeros
    v = static_cast<float>(scale * x);
  }
}

}  // namespace tp
