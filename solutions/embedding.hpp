// Puzzle 23, embedding: out[r, :] = table[ids[r], :]. Each program loads its ids once, then
// copies the rows they name, a block of columns at a time.
#pragma once

#include <algorithm>

#include "tile/tl.hpp"

namespace solutions {

template <int B0, int B1>
struct Embedding {
  // 16 elements of the block per thread, 1 to 16 warps (as the norms).
  static constexpr int num_warps = std::clamp(B0 * B1 / (32 * 16), 1, 16);

  TL_KERNEL void operator()(tl::ptr<const int> ids, tl::ptr<const float> table,
                            tl::ptr<float> out, int N0, int V, int D) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    // A row past N0 has no id: its lane is off here and in every gather below.
    auto token = tl::load(ids + rows, row_mask);
    // Where each row comes from (the table's row its id names) and where it goes: [B0, 1].
    auto source = table + token.col() * D;
    auto target = out + rows.col() * D;

    for (int j = 0; j < D; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < D).row();
      tl::store(target + cols.row(), tl::load(source + cols.row(), mask), mask);
    }
  }
};

}  // namespace solutions
