// One kernel that uses every operation of docs/tl.md, so that the whole public API compiles on
// both backends (tests/every_op.cpp runs it in the simulator; tests/compile/every_op.cu builds it
// with nvcc; the GPU parity test runs it on the GPU and compares). Each section writes its own
// slice of z, so a missing or wrong operation shows up as a wrong slice.
#pragma once

#include <cmath>

#include "tile/tl.hpp"

namespace test_kernels {

// x holds B0 * B1 floats in [-2, 2); z holds EveryOp<B0, B1>::outputs floats.
template <int B0, int B1, int Warps = 4>
struct EveryOp {
  static constexpr int num_warps = Warps;
  static constexpr int slices = 23;
  static constexpr int outputs = slices * B0 * B1 + 1;

  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int n) const {
    // Creation, program ids, cdiv.
    const int program = tl::program_id(0) + tl::num_programs(0) - 1;  // 0 in a 1-program launch
    auto rows = program * B0 + tl::arange<B0>();
    auto cols = tl::arange<B1>();
    auto offs = rows.col() * B1 + cols.row();                 // [B0, B1]
    auto in_range = offs < n;
    int blocks = tl::cdiv(n, B1);

    // Loads: pointer tile, mask, other; a single pointer; pointer arithmetic both ways.
    auto block = tl::load(x + offs, in_range, 0.0f);          // [B0, B1] data
    auto row0 = tl::load(((x + 1) - 1) + cols);               // [B1] data, no mask
    float x0 = tl::load(x);                                   // rank 0 -> scalar
    auto shifted = tl::load(1 + (cols + x) - 1, cols < n, -1.0f);

    auto slice = [&](int s) { return z + s * B0 * B1 + offs; };

    // Elementwise operators, weak scalars, broadcasting of data and lazy tiles.
    tl::store(slice(0), block + row0.row() * 0.5f - x0 + blocks, in_range);
    tl::store(slice(1), -block * 2 / 3.0f, in_range);
    tl::store(slice(2), tl::where(block > 0.0f, block, 0.0f) + tl::cast<float>(offs % 3), in_range);
    tl::store(slice(3), tl::cast<float>(((block >= 0.0f) & (offs <= 20)) | (offs == 7) |
                                         (offs != offs) | !(block < -1.0f) | ~(block <= 1.5f)),
              in_range);
    // Integer division and remainder truncate toward zero.
    tl::store(slice(4), tl::cast<float>((offs - 9) / 4 * 10 + (offs - 9) % 4), in_range);
    // maximum / minimum, with a data tile, a lazy tile and scalars.
    tl::store(slice(5), tl::maximum(block, -0.5f) + tl::minimum(0.25f, block) +
                            tl::maximum(shifted.row(), block), in_range);
    // Math functions.
    tl::store(slice(6), tl::exp(block) + tl::exp2(block) - tl::abs(block), in_range);
    tl::store(slice(7), tl::log(tl::abs(block) + 1.0f) + tl::log2(block * block + 2.0f) +
                            tl::sqrt(tl::abs(block)) + tl::sin(block) + tl::cos(block),
              in_range);

    // tl's own functions: data and lazy operands, weak scalars on either side of pow, fma with
    // a scalar and a broadcast row.
    tl::store(slice(16), tl::fma(tl::floor(block), 4, tl::ceil(block * 0.5f)) +
                             tl::fma(cols.row(), 0.25f, tl::rsqrt(tl::abs(block) + 1.0f)) -
                             tl::sqrt(tl::abs(block)),
              in_range);
    tl::store(slice(17), tl::sigmoid(block) + tl::tanh(block) + tl::erf(block) +
                             tl::log1p(tl::abs(block)) + tl::pow(tl::abs(block), 1.5f) +
                             tl::pow(2, block) + tl::sigmoid(tl::cast<float>(offs) * 0.125f),
              in_range);

    // Random numbers: a run-time seed with lazy offsets, constant seeds with data offsets.
    tl::store(slice(22), tl::rand(blocks, offs) + tl::randn(7, tl::cast<int>(block * 4.0f)) +
                             tl::cast<float>(tl::randint(-3, offs) & 255),
              in_range);

    // Reductions along each axis, with keep_dims, over everything; rank-0 tiles as scalars.
    auto row_max = tl::max<1>(block);                         // [B0]
    auto col_sum = tl::sum<0>(block);                         // [B1]
    auto row_min = tl::min<1>(block, tl::keep_dims);          // [B0, 1]
    tl::tile<float> total = tl::sum(block);
    float largest = tl::max(block);
    float smallest = tl::min(row0);
    int count = tl::sum(block > 0.0f);
    tl::store(slice(8), block - row_max.col() + col_sum.row() - row_min, in_range);
    tl::store(slice(9), total + largest * smallest + count + tl::sum<0>(tl::max<1>(block)),
              in_range);
    tl::store(slice(10), tl::expand_dims<1>(tl::sum<1>(block > 0.0f)) + tl::expand_dims<0>(cols),
              in_range);

    // Scans, sorts and index reductions along each axis, forward and reverse, and a scan with
    // a function of the kernel's own.
    tl::store(slice(18), tl::cumsum<1>(block) + tl::cumsum<0>(block, tl::reverse) +
                             tl::cumprod<1>(block * 0.5f) +
                             tl::associative_scan<1>(
                                 block, [](auto a, auto b) { return tl::maximum(a, b); }) -
                             tl::cast<float>(tl::cumsum<0>(offs)),
              in_range);
    tl::store(slice(19), tl::sort<1>(block) + tl::sort<0>(block, tl::descending), in_range);
    tl::store(slice(20), tl::cast<float>(tl::argmax<1>(block).col() * 100 +
                                         tl::argmin<0>(block, tl::keep_dims) * 10 +
                                         tl::argmax(block) - tl::argmin(row0)),
              in_range);

    // Declared tiles: construction, assignment, compound assignment, default construction.
    tl::tile<float, B0> running = tl::full<B0>(-INFINITY);
    tl::tile<float, B0, B1> acc = 0.0f;
    tl::tile<int, B1> counts = tl::zeros<int, B1>();
    tl::tile<float, B0> unset;
    unset = 1.0f;
    for (int k = 0; k < 3; ++k) {
      running = tl::maximum(running, tl::max<1>(block * k));
      acc += block;
      acc -= 0.5f;
      acc *= 2.0f;
      acc /= 2.0f;
      counts = counts + tl::cast<int>(row0 > 0.0f);
    }
    tl::store(slice(11), acc + running.col() + unset.col(), in_range);
    tl::store(slice(12), tl::cast<float>(counts).row() + tl::full<B0, B1>(1.0f), in_range);

    // Stores: a scalar value, a single pointer, no mask; load with a data mask and `other`.
    tl::store(slice(13), 3.0f, in_range);
    tl::store(z + slices * B0 * B1, 5.0f);
    auto again = tl::load(x + offs, block > 0.0f, block);
    tl::store(slice(14), again, in_range);
    // dot with and without an accumulator, and with TF32 operands.
    auto a = tl::load(x + tl::arange<16>().col() * 0 + tl::arange<16>().row(),
                      tl::arange<16>().row() < n, 0.0f);
    auto prod = tl::dot(a, a, tl::zeros<float, 16, 16>()) + tl::dot(a, a) +
                tl::dot(a, a, tl::zeros<float, 16, 16>(), tl::tf32) + tl::dot(a, a, tl::tf32);
    // int8: a cast from float truncates to int32, then keeps the low 8 bits; an int8 dot
    // accumulates in int32.
    auto q = tl::cast<tl::int8>(a * 60.0f);
    auto int_prod = tl::dot(q, q) + tl::dot(q, q, tl::zeros<int, 16, 16>());
    tl::store(slice(15), tl::sum(prod) * 0.0f + tl::cast<float>(tl::sum(int_prod) * 0) + 1.0f,
              in_range);

    // Atomics, on elements this program stored first with the same lanes (tests/atomics.cpp and
    // tests/kernels/atomics.hpp test them across programs). Each step's old value feeds the next,
    // so a wrong one changes the end value, max(2x, 3x).
    tl::store(slice(21), block, in_range);
    auto before = tl::atomic_add(slice(21), block, in_range);           // 2x; returns x
    auto prev = tl::atomic_max(slice(21), before * 3.0f, in_range);      // max(2x, 3x); returns 2x
    tl::atomic_min(slice(21), 100.0f + prev - before * 2.0f, in_range);  // min with 100: the same
    auto now = tl::atomic_xchg(slice(21), block, in_range);               // x; returns max(2x, 3x)
    tl::atomic_cas(slice(21), block, now, in_range);                      // x matches: max(2x, 3x)
  }
};

}  // namespace test_kernels
