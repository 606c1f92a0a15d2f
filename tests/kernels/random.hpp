// tl::randint, tl::rand and tl::randn at given offsets (an int32 input, so that any offset can be
// asked for: negative ones, the ends of int32) with a run-time seed: the known answers of
// tests/kernels/random_expected.hpp on either backend.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// offsets: n int32 counters; bits: randint's lanes; uniform, normal: rand's and randn's.
template <int N, int Warps = 4>
struct RandomNumbers {
  static constexpr int num_warps = Warps;
  static constexpr int random_tile = N;

  TL_KERNEL void operator()(tl::ptr<const int> offsets, tl::ptr<int> bits, tl::ptr<float> uniform,
                            tl::ptr<float> normal, int n, int seed) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto counters = tl::load(offsets + i, in, 0);
    tl::store(bits + i, tl::randint(seed, counters), in);
    tl::store(uniform + i, tl::rand(seed, counters), in);
    tl::store(normal + i, tl::randn(seed, counters), in);
  }
};

// rand and randn over `n` consecutive offsets from `first`, lazily (the offsets an index
// expression, as a kernel writes them): what the statistics are taken of.
template <int B, int Warps = 4>
struct RandomStream {
  static constexpr int num_warps = Warps;
  static constexpr int stream_block = B;

  TL_KERNEL void operator()(tl::ptr<float> uniform, tl::ptr<float> normal, int n, int seed) const {
    auto offsets = tl::program_id(0) * B + tl::arange<B>();
    auto in = offsets < n;
    tl::store(uniform + offsets, tl::rand(seed, offsets), in);
    tl::store(normal + offsets, tl::randn(seed, offsets), in);
  }
};

}  // namespace test_kernels
