// Tensor descriptors on both backends (tile/descriptor.hpp). One program moves the blocks of an
// [R, C] tensor through descriptors in every way the copy engine's rule touches: blocks that
// overlap the far edges, blocks at negative coordinates (their elements before the start read as
// zero), a store through a descriptor whose shape is smaller than the memory behind it (nothing
// past the shape is written), a 1-D and a 3-D descriptor, and a transposed view (strides {1, C}).
// Every element of z is written once, by a plain store or a descriptor's; the GPU parity test
// (tests/gpu/parity.cpp) compares them all with the simulator's.
#pragma once

#include "tile/tl.hpp"

namespace test_kernels {

template <class T, int R, int C, int B0, int B1, int Warps>
struct Descriptors {
  static_assert(R % 2 == 0, "the 3-D view splits the rows in two");
  static constexpr int num_warps = Warps;
  using operand = T;  // x and y hold whole numbers of this type (tests/gpu/parity.cpp)
  static constexpr int tile = R * C;
  static constexpr int kdim = tile;

  // Block origins start this far before the tensor: less than a block, so none is wholly off it.
  static constexpr int lead0 = B0 > 3 ? 3 : B0 - 1;
  static constexpr int lead1 = B1 > 5 ? 5 : B1 - 1;
  static constexpr int padded_rows = tl::cdiv(R + lead0, B0) * B0;
  static constexpr int padded_cols = tl::cdiv(C + lead1, B1) * B1;
  static constexpr int copied = 0;
  static constexpr int shifted = copied + R * C;
  static constexpr int clipped = shifted + padded_rows * padded_cols;
  static constexpr int flat = clipped + R * C;
  static constexpr int cube = flat + R * C;
  static constexpr int transposed = cube + R * C;
  static constexpr int outputs = transposed + R * C;

  TL_KERNEL void operator()(tl::ptr<const T> x, tl::ptr<const T> y, tl::ptr<float> z, int n) const {
    auto xd = tl::make_tensor_descriptor(x, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
    auto yd = tl::make_tensor_descriptor(y, {R, C}, {C, 1}, tl::block_shape<B0, B1>);

    // A copy, block by block; the last row and column of blocks overlap the edge.
    auto copy = tl::make_tensor_descriptor(z + copied, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
    for (int i = 0; i < R; i += B0)
      for (int j = 0; j < C; j += B1) copy.store({i, j}, xd.load({i, j}));

    // Blocks from (-lead0, -lead1) on, each stored whole by a plain store: their zeros show.
    for (int i = -lead0; i < R; i += B0) {
      for (int j = -lead1; j < C; j += B1) {
        auto rows = (i + lead0) + tl::arange<B0>();
        auto cols = (j + lead1) + tl::arange<B1>();
        const int width = padded_cols;  // a value: device code cannot bind a static member
        tl::store(z + shifted + rows.col() * width + cols.row(), tl::cast<float>(xd.load({i, j})));
      }
    }

    // A store through a descriptor two rows and three columns short of its memory: a plain store
    // writes those first, and the descriptor's blocks, which reach past its shape, must not.
    for (int i = 0; i < R; i += B0) {
      for (int j = 0; j < C; j += B1) {
        auto rows = i + tl::arange<B0>();
        auto cols = j + tl::arange<B1>();
        auto outside = (rows >= R - 2).col() | (cols >= C - 3).row();
        tl::store(z + clipped + rows.col() * C + cols.row(), 7.0f,
                  (rows < R).col() & (cols < C).row() & outside);
      }
    }
    auto clip = tl::make_tensor_descriptor(z + clipped, {R - 2, C - 3}, {C, 1}, tl::block_shape<B0, B1>);
    for (int i = -lead0; i < R - 2; i += B0)
      for (int j = -lead1; j < C - 3; j += B1) clip.store({i, j}, tl::cast<float>(yd.load({i, j})) + 100.0f);

    // 1-D: y's first n - 1 elements, read one element early.
    auto y1 = tl::make_tensor_descriptor(y, {n - 1}, {1}, tl::block_shape<B1>);
    auto flat1 = tl::make_tensor_descriptor(z + flat, {n}, {1}, tl::block_shape<B1>);
    for (int o = 0; o < n; o += B1) flat1.store({o}, y1.load({o - 1}));

    // 3-D: x as [2, R / 2, C], blocks of both halves at once.
    auto x3 = tl::make_tensor_descriptor(x, {2, R / 2, C}, {R / 2 * C, C, 1}, tl::block_shape<2, B0, B1>);
    auto z3 = tl::make_tensor_descriptor(z + cube, {2, R / 2, C}, {R / 2 * C, C, 1}, tl::block_shape<2, B0, B1>);
    for (int i = 0; i < R / 2; i += B0)
      for (int j = 0; j < C; j += B1) z3.store({0, i, j}, tl::cast<float>(x3.load({0, i, j})) * 2.0f);

    // xᵀ, read through strides {1, C}: a view the copy engine cannot take (its innermost stride
    // is not 1), moved element by element.
    auto xt = tl::make_tensor_descriptor(x, {C, R}, {1, C}, tl::block_shape<8, 8>);
    auto zt = tl::make_tensor_descriptor(z + transposed, {C, R}, {R, 1}, tl::block_shape<8, 8>);
    for (int i = 0; i < C; i += 8)
      for (int j = 0; j < R; j += 8) zt.store({i, j}, xt.load({i, j}));
  }
};

}  // namespace test_kernels
