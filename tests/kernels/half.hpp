// Half-precision tiles on both backends: loads and stores of tl::float16 / tl::bfloat16 (whole
// 16-byte vectors and masked tails), casts to and from float, int32 and the other half type
// (round to nearest even, NaN kept), + - * / computed in float and rounded back, maximum and
// minimum with NaN and signed zeros, max/min reductions, where with weak scalars, negation and
// abs. The GPU parity test (tests/gpu/parity.cpp) runs it in the simulator and on the GPU and
// compares every output bit for bit (a NaN only as a NaN: its sign and payload after arithmetic
// are not part of tl's semantics, on float lanes either).
#pragma once

#include <type_traits>

#include "tile/tl.hpp"

namespace test_kernels {

// x, y: N values of T; f: N floats; h: half_outputs * N values of T; z: float_outputs * N floats.
template <class T, int N, int Warps>
struct HalfOps {
  using element = T;
  using other_half = std::conditional_t<std::is_same_v<T, tl::float16>, tl::bfloat16, tl::float16>;
  static constexpr int num_warps = Warps;
  static constexpr int tile = N;
  static constexpr int half_outputs = 14;
  static constexpr int float_outputs = 4;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<const float> f,
                            tl::ptr<T> h, tl::ptr<float> z, int n) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto vx = tl::load(x + i, in, 0.0f);
    auto vy = tl::load(y + i, in, 1.0f);
    auto vf = tl::load(f + i, in, 0.0f);
    auto slice = [&](int s) { return h + s * N + i; };

    tl::store(slice(0), vx, in);                 // a copy: 16-byte vectors where all 8 are on
    tl::store(slice(1), tl::cast<T>(vf), in);    // float to T, round to nearest even
    tl::store(slice(2), vx + vy, in);
    tl::store(slice(3), vx * vy, in);
    tl::store(slice(4), vx - vy, in);
    tl::store(slice(5), vx / vy, in);
    tl::store(slice(6), tl::maximum(vx, vy), in);
    tl::store(slice(7), tl::minimum(vx, vy), in);
    tl::store(slice(8), tl::where(vx < vy, vx, vy * 0.5f), in);
    auto small = tl::where(tl::abs(vx) < 1000.0f, vx, 0.0f);
    tl::store(slice(9), tl::cast<T>(tl::cast<int>(small * 7.0f)), in);   // T to int32 and back
    tl::store(slice(10), tl::cast<T>(tl::cast<other_half>(vx)), in);     // through the other type
    tl::store(slice(11), -vx, in);
    tl::store(slice(12), tl::abs(vy), in);
    tl::store(slice(13), vf, in);                // a float tile stored to T: rounded by the store

    // Rows of 8: max and min reductions of T (order-free: NaN and signed zeros decide alone).
    auto r = tl::arange<N / 8>();
    auto c = tl::arange<8>();
    auto grid = tl::load(x + r.col() * 8 + c.row());
    tl::store(z + r, tl::cast<float>(tl::max<1>(grid)));
    tl::store(z + N / 8 + r, tl::cast<float>(tl::min<1>(grid)));
    tl::store(z + N + i, tl::cast<float>(vx), in);                 // T to float, exact
    tl::store(z + 2 * N + i, vx * vf, in);                         // T times float is float
    tl::store(z + 3 * N + i, tl::sqrt(vy), in);                    // math on T is float
  }
};

// Reshapes on both backends: a data tile seen with another shape (free on the GPU), then reduced
// along an axis of the new shape, combined with a tile of another layout (a conversion), and
// reshaped back; a lazy tile reshaped; a rank-3 tile from expand_dims reshaped to 2-D.
template <int N, int Warps>
struct Reshapes {
  static constexpr int num_warps = Warps;
  static constexpr int tile = N;
  static constexpr int outputs = 4 * N;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    auto i = tl::arange<N>();
    auto in = i < n;
    auto vx = tl::load(x + i, in, 0.0f);
    auto vy = tl::load(y + i, in, 0.0f);
    auto grid = tl::reshape<N / 8, 8>(vx);                    // [N / 8, 8]
    auto row_max = tl::max<1>(grid);
    auto col = tl::load(y + tl::arange<8>());                 // [8]
    auto mixed = grid - row_max.col() + col.row();
    tl::store(z + i, tl::reshape<N>(mixed), in);

    auto tall = tl::reshape<8, N / 8>(vy);                    // another split of the same bits
    tl::store(z + N + i, tl::reshape<N>(tall * tl::sum<0>(tall).row()), in);

    auto lazy = tl::reshape<N / 4, 4>(i * 3);                 // no data: evaluated anywhere
    tl::store(z + 2 * N + i, tl::cast<float>(tl::reshape<N>(lazy)) + vx, in);

    auto cube = tl::expand_dims<2>(tl::reshape<N / 8, 8>(vy)) * tl::arange<2>();  // [N/8, 8, 2]
    auto flat = tl::reshape<N / 8, 16>(cube);
    auto halves = tl::max<1>(flat);
    tl::store(z + 3 * N + i, vx * 0.0f + tl::reshape<N>(tl::reshape<N / 8, 8>(vy) + halves.col()), in);
  }
};

// tl::dot of half operands, into a declared accumulator and without one: whole numbers in
// [-16, 16] (exact in float16 and bfloat16, every product and sum exact in float), so the GPU and
// the simulator agree to the bit.
template <class T, int M, int N, int K, int Warps>
struct HalfDot {
  static constexpr int num_warps = Warps;
  static constexpr int tile = M * K > K * N ? M * K : K * N;
  static constexpr int outputs = 2 * M * N;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int n) const {
    auto rows = tl::arange<M>();
    auto cols = tl::arange<N>();
    auto ks = tl::arange<K>();
    auto out = rows.col() * N + cols.row();
    auto whole = [](auto t) { return tl::cast<T>(tl::cast<int>(t * 8.0f)); };
    auto a = whole(tl::load(x + rows.col() * K + ks.row(), (rows.col() * K + ks.row()) < n, 0.0f));
    auto b = whole(tl::load(y + ks.col() * N + cols.row()));
    tl::tile<float, M, N> acc = 1.0f;
    acc = tl::dot(a, b, acc);
    tl::store(z + out, acc);
    tl::store(z + M * N + out, tl::dot(a, b));
  }
};

}  // namespace test_kernels
