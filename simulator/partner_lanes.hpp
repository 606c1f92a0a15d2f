// The step that tl's scans and sorts are built from (tile/scan.hpp, tile/sort.hpp): every lane
// takes the value of its partner, the lane whose index along one axis differs in one bit. The
// simulator holds a tile row-major, so the partner is the flat index with one bit flipped; the
// poison bit and its origin travel with the value.
#pragma once

#include <source_location>

#include "simulator/context.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/tile_storage.hpp"
#include "tile/expr.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {
namespace backend {

template <int Axis, int Bit, class E>
auto partner_lanes(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  using T = value_of_t<E>;
  static_assert(Axis >= 0 && Axis < S::rank && (1 << Bit) < S::dim(Axis));
  sim::current_context().tick(loc);
  const auto in = backend::materialize(x);
  data_tile<T, S> out(detail::uninitialized_t{});
  const long long flip = S::stride(Axis) << Bit;
  for (long long i = 0; i < S::size; ++i) {
    out.storage.value(i) = in.storage.value(i ^ flip);
    out.storage.poisoned(i) = in.storage.poisoned(i ^ flip);
  }
  out.storage.origin = in.storage.origin;
  return out;
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
