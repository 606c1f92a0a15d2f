// The step that tl's scans and sorts are built from (tile/scan.hpp, tile/sort.hpp): every lane
// takes the value of its partner, the lane whose index along one axis differs in one bit. Where
// that bit lives in the tile's layout decides the cost, as in a reduction (cuda/reduce.cuh):
// a register bit is a renaming of registers (free), a lane bit one shuffle per register, a warp
// bit a round trip through shared memory. The result keeps the operand's layout.
#pragma once

#include "cuda/runtime.cuh"

#include "cuda/convert.cuh"
#include "cuda/reduce.cuh"
#include "cuda/tile_storage.cuh"
#include "tile/expr.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// Which register, lane or warp bit of a layout carries flat-index bit `out`.
template <layouts::linear_layout L>
constexpr int position_of_bit(int out) {
  for (int i = 0; i < L.reg_bits; ++i)
    if (L.reg[i] == out) return i;
  for (int i = 0; i < layouts::lane_bits; ++i)
    if (L.lane[i] == out) return i;
  for (int i = 0; i < L.warp_bits; ++i)
    if (L.warp[i] == out) return i;
  return -1;
}

template <int Axis, int Bit, class E>
__device__ __forceinline__ auto partner_lanes(const E& x) {
  using S = shape_of_t<E>;
  const auto& data = as_data(x);
  using D = std::remove_cvref_t<decltype(data)>;
  using L = typename D::layout_type;
  using T = value_of_t<D>;
  constexpr int flat_bit = bits_of<S>().low_bit(Axis) + Bit;
  constexpr int kind = L::value.source_kind(flat_bit);
  constexpr int at = position_of_bit<L::value>(flat_bit);
  static_assert(kind >= 0, "tl (GPU backend): internal error: a layout without this bit");
  basic_tile<T, S, L> out(detail::uninitialized_t{});
  if constexpr (kind == 0) {
    static_for<L::registers>([&](auto k) {
      out.storage.regs[k] = data.storage.regs[decltype(k)::value ^ (1 << at)];
    });
  } else if constexpr (kind == 1) {
    static_for<L::registers>([&](auto k) {
      out.storage.regs[k] = shuffle_xor(data.storage.regs[k], 1 << at);
    });
  } else {
    T* buffer = shared_buffer<T, padded_size<S>>();
    __syncthreads();  // earlier readers of this buffer are done
    const int base = thread_flat<L>();
    if (holds_first_copy<L>())
      static_for<L::registers>([&](auto k) {
        buffer[padded(flat_of<L, decltype(k)::value>(base))] = data.storage.regs[k];
      });
    __syncthreads();
    static_for<L::registers>([&](auto k) {
      out.storage.regs[k] = buffer[padded(flat_of<L, decltype(k)::value>(base) ^ (1 << flat_bit))];
    });
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
