// Puzzle 15, matmul-int4: z = dequantize(weight, scale, zero) @ activation, with 4-bit weights
// packed eight to an int32.
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1, int B_MID>
struct MatmulInt4 {
  static constexpr int num_warps = 4;
  static constexpr int FPINT = 8;  // 4-bit values per int32
  static constexpr int GROUP = 8;  // weights per scale and per zero point

  // The eight 4-bit values of each int32, lowest bits first: [R, C] -> [R, C, 8].
  template <class Packed>
  TL_FN static auto unpack(const Packed& packed) {
    auto shifts = tl::arange<FPINT>() * 4;
    return (tl::expand_dims<2>(packed) >> shifts) & 0xF;
  }

  TL_KERNEL void operator()(tl::ptr<const float> scale, tl::ptr<const int> zero,
                            tl::ptr<const int> weight, tl::ptr<const float> activation,
                            tl::ptr<float> z, int N0, int N1, int MID) const {
    constexpr int GROUPS = B_MID / GROUP;         // groups (and packed weights) per step
    constexpr int ZERO_WORDS = GROUPS / FPINT;    // packed zero points per step
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    auto row_mask = rows < N0;

    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += B_MID) {
      auto groups = k / GROUP + tl::arange<GROUPS>();
      auto group_mask = row_mask.col() & (groups < MID / GROUP).row();
      auto packed = tl::load(weight + rows.col() * (MID / FPINT) + groups.row(), group_mask, 0);
      auto scales = tl::load(scale + rows.col() * (MID / GROUP) + groups.row(), group_mask, 0.0f);

      auto words = k / (GROUP * FPINT) + tl::arange<ZERO_WORDS>();
      auto zero_words = tl::load(zero + rows.col() * (MID / (GROUP * FPINT)) + words.row(),
                                 row_mask.col() & (words < MID / (GROUP * FPINT)).row(), 0);
      auto zeros = tl::reshape<B0, GROUPS>(unpack(zero_words));

      // [B0, GROUPS, GROUP]: weight j of group g is scale[g] * (nibble - zero[g]).
      auto weights = tl::expand_dims<2>(scales) *
                     tl::cast<float>(unpack(packed) - tl::expand_dims<2>(zeros));

      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(activation + ks.col() * N1 + cols.row(),
                        (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(tl::reshape<B0, B_MID>(weights), a, acc);
    }
    tl::store(z + rows.col() * N1 + cols.row(), acc, row_mask.col() & (cols < N1).row());
  }
};

}  // namespace solutions
