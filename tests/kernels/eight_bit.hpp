// int8 and uint8 tiles on both backends: loads and stores of bytes (whole 16-byte vectors and a
// masked tail), arithmetic in int32, casts to 8 bits from int32 (the low 8 bits) and from float
// (truncated to int32 first), and casts back to int32 and float. The GPU parity test
// (tests/gpu/parity.cpp) runs it in the simulator and on the GPU and compares every output.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

// x: N values of T; f: N floats within int32; b: byte_outputs * N values of T; z: int_outputs * N
// ints.
template <class T, int N, int Warps>
struct EightBitOps {
  using eight_bit = T;
  static constexpr int num_warps = Warps;
  static constexpr int tile = N;
  static constexpr int byte_outputs = 4;
  static constexpr int int_outputs = 3;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const float> f, tl::ptr<T> b,
                            tl::ptr<int> z, int n) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto vx = tl::load(x + i, in, 0);
    auto vf = tl::load(f + i, in, 0.0f);

    tl::store(b + i, vx, in);                                   // a copy: 16 bytes at a time
    tl::store(b + N + i, tl::cast<T>(vx * 3 + 1), in);          // the low 8 bits of an int32
    tl::store(b + 2 * N + i, tl::cast<T>(vf), in);              // float: truncated, low 8 bits
    tl::store(b + 3 * N + i, tl::cast<T>(tl::minimum(tl::maximum(vf, -128.0f), 127.0f)), in);
    tl::store(z + i, vx * vx - vx * 1000, in);                  // int32 arithmetic
    tl::store(z + N + i, tl::cast<int>(tl::cast<float>(vx) * 0.5f), in);
    tl::store(z + 2 * N + i, tl::cast<int>(vx) + tl::sum(tl::where(in, vx, 0)), in);
  }
};

}  // namespace test_kernels
