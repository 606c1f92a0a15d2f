// Every atomic of docs/tl.md, on float32 and int32, across the programs of a launch, in a form
// whose results do not depend on the order the programs and lanes run in: sums of whole numbers
// (exact in any order), max/min, and old values only of lanes that alone touch their element. The
// simulator (tests/atomics.cpp, by hand) and the GPU (the parity test, tests/gpu/parity.cpp) must
// agree on every element, the NaN and -0 rules of tl::maximum/minimum included.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace test_kernels {

// x: n floats, whole numbers. z (float32) and counts
// (int32) are zeroed outputs of z_size(n) and counts_size(n) elements. Launch with a grid that
// covers n with B lanes per program.
template <int B, int Warps = 4>
struct Atomics {
  static constexpr int num_warps = Warps;
  static constexpr int block = B;
  static constexpr int bins = 8;
  static constexpr long long z_size(int n) { return 3 * bins + 3LL * n; }
  static constexpr long long counts_size(int n) { return 16 + 2LL * n; }

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, tl::ptr<int> counts,
                            int n) const {
    const int bins = Atomics::bins;  // a copy: device code may not bind the member to a reference
    auto offs = tl::program_id(0) * B + tl::arange<B>();
    auto in = offs < n;
    auto v = tl::load(x + offs, in, 0.0f);

    // Elements many lanes of many programs share: sums of whole numbers, maxima, minima (with a
    // NaN in lane 5, which wins in its bins as in tl::maximum/minimum).
    tl::atomic_add(z + offs % bins, v, in);
    auto with_nan = tl::where(offs == 5, NAN, v);
    tl::atomic_max(z + bins + offs % bins, with_nan, in);
    tl::atomic_min(z + 2 * bins + offs % bins, with_nan, in);
    tl::atomic_add(counts + offs % bins, 1, in);
    tl::atomic_max(counts + bins + offs % 4, offs, in);
    tl::atomic_min(counts + bins + 4 + offs % 4, -offs, in);

    // An element of its own per lane: each old value is known.
    auto own = z + 3 * bins + offs;
    auto was_zero = tl::atomic_xchg(own, v, in);      // 0, and the element becomes v
    auto was_v = tl::atomic_add(own, 1.5f, in);       // v, then v + 1.5
    auto even = in & (offs % 2 == 0);
    auto swapped = tl::atomic_cas(own, v + 1.5f, -v, even);  // v + 1.5 on even lanes: now -v
    auto unmatched = tl::atomic_cas(own, 1000.0f, 7.0f, in); // no match: what the element holds
    tl::store(z + 3 * bins + n + offs, was_zero + was_v * 2.0f + unmatched * 4.0f, in);
    tl::store(z + 3 * bins + 2 * n + offs, swapped, even);

    auto mine = counts + 16 + offs;
    auto first = tl::atomic_add(mine, offs, in);      // 0
    auto second = tl::atomic_add(mine, 3, in);        // offs
    tl::store(counts + 16 + n + offs, first * 1000 + second, in);
  }
};

}  // namespace test_kernels
