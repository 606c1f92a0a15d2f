// What the test kernels over the rows of x[N0, T] share, the part they get right, so that each
// kernel shows its bug (or its twist) and little else: a masked block of columns, and the
// softmaxes' last pass. Every kernel covers rows program_id(0) * B0 + arange<B0>() of x (and z);
// a load or store reports the kernel's line, not this header's (std::source_location).
#pragma once

#include <source_location>

#include "tile/tl.hpp"

namespace rows {

// Columns [j, j + B1) of the program's rows, `other` in the lanes past either edge.
template <int B1, class Rows>
auto load_block(tl::ptr<const float> x, const Rows& rows, int j, int N0, int T, float other,
                std::source_location loc = std::source_location::current()) {
  auto cols = j + tl::arange<B1>();
  return tl::load(x + rows.col() * T + cols.row(), (rows < N0).col() & (cols < T).row(), other,
                  loc);
}

// The softmaxes' last pass over the columns below `end`: z = exp(x - row_max) / row_sum.
template <int B1, class Rows, class Max, class Sum>
void store_softmax(tl::ptr<const float> x, tl::ptr<float> z, const Rows& rows, int N0, int T,
                   int end, const Max& row_max, const Sum& row_sum,
                   std::source_location loc = std::source_location::current()) {
  for (int j = 0; j < end; j += B1) {
    auto cols = j + tl::arange<B1>();
    auto mask = (rows < N0).col() & (cols < T).row();
    auto block = tl::load(x + rows.col() * T + cols.row(), mask, 0.0f, loc);
    tl::store(z + rows.col() * T + cols.row(), tl::exp(block - row_max.col()) / row_sum.col(), mask,
              loc);
  }
}

}  // namespace rows
