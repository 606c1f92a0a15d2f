// Reductions (sum, max, min along an axis or over a whole tile) on the GPU, in the manner of
// CUB's block reduce, with a layout for the result instead of one value.
//
// The reduced bits of the operand's layout come from registers, lanes or warps:
//   1. registers: each thread folds the registers that differ only in reduced bits, in order;
//   2. lanes: butterfly shuffles (xor over each reduced lane bit, lowest first), after which
//      every lane of a group holds the same bits of the same value;
//   3. warps: the first copy of each partial is written to shared memory, the block synchronizes,
//      and every thread folds the partials of warp group 0, 1, 2, ... in that order.
// The order is fixed, so a result has the same bits on every run, in every thread. Its layout is
// the operand's without the reduced bits (layouts::without_bits): replicated across the lanes
// and warps that were reduced, which is what makes broadcasting it back free.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

template <class T>
__device__ __forceinline__ T shuffle_xor(T v, int lane_mask) {
  if constexpr (std::is_same_v<T, bool>) {
    return __shfl_xor_sync(0xffffffffu, static_cast<int>(v), lane_mask) != 0;
  } else if constexpr (sizeof(T) == 2) {
    // tl::float16 and tl::bfloat16 (cuda/half.cuh): their 16 bits, moved as an int.
    std::uint16_t bits;
    std::memcpy(&bits, &v, 2);
    bits = static_cast<std::uint16_t>(__shfl_xor_sync(0xffffffffu, static_cast<int>(bits), lane_mask));
    T out;
    std::memcpy(&out, &bits, 2);
    return out;
  } else {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
  }
}

// The operand as a data tile: itself, or the expression evaluated in its natural layout.
template <class E>
__device__ __forceinline__ decltype(auto) as_data(const E& x) {
  if constexpr (is_data_tile<E>::value) {
    return (x);
  } else {
    using S = shape_of_t<E>;
    using L = layouts::layout<result_layout<S, E>()>;
    basic_tile<value_of_t<E>, S, L> t(detail::uninitialized_t{});
    evaluate_into(t.storage, x);
    return t;
  }
}

// What a reduction of the flat-index bits [Low, Low + Count) of a tile in layout In keeps.
template <layouts::linear_layout In, int Low, int Count>
struct reduction_plan {
  static constexpr bool reduced(int out) { return out >= Low && out < Low + Count; }
  static constexpr layouts::linear_layout result = layouts::without_bits(In, Low, Count);
  // The result register that input register k folds into.
  static constexpr int result_register(int k) {
    int r = 0, next = 0;
    for (int i = 0; i < In.reg_bits; ++i) {
      if (reduced(In.reg[i])) continue;
      r |= ((k >> i) & 1) << next++;
    }
    return r;
  }
  // Whether input register k is the first to fold into its result register.
  static constexpr bool first_into(int k) {
    for (int j = 0; j < k; ++j)
      if (result_register(j) == result_register(k)) return false;
    return true;
  }
  static constexpr unsigned reduced_warps() {
    unsigned m = 0;
    for (int i = 0; i < In.warp_bits; ++i)
      if (reduced(In.warp[i])) m |= 1u << i;
    return m;
  }
  static constexpr int warp_groups() {
    int g = 1;
    for (int i = 0; i < In.warp_bits; ++i)
      if (reduced(In.warp[i])) g *= 2;
    return g;
  }
};

// Reduces the flat-index bits [Low, Low + Count) of a data tile with Op; R is the result's shape
// (the same elements with those bits gone).
template <class Op, int Low, int Count, class R, class T, class S, class L>
__device__ __forceinline__ auto reduce_bits(const basic_tile<T, S, L>& x) {
  using Result = reduced_value_t<Op, T>;
  using plan = reduction_plan<L::value, Low, Count>;
  using RL = layouts::layout<plan::result>;

  // 1. Registers, in order.
  basic_tile<Result, R, RL> out(detail::uninitialized_t{});
  static_for<L::registers>([&](auto k) {
    constexpr int r = plan::result_register(decltype(k)::value);
    const Result v = static_cast<Result>(x.storage.regs[k]);
    if constexpr (plan::first_into(decltype(k)::value)) {
      out.storage.regs[r] = v;
    } else {
      out.storage.regs[r] = static_cast<Result>(Op{}(out.storage.regs[r], v));
    }
  });

  // 2. Lanes, lowest bit first.
  static_for<layouts::lane_bits>([&](auto i) {
    if constexpr (plan::reduced(L::value.lane[decltype(i)::value])) {
      static_for<RL::registers>([&](auto r) {
        auto& v = out.storage.regs[r];
        v = static_cast<Result>(Op{}(v, shuffle_xor(v, 1 << decltype(i)::value)));
      });
    }
  });

  // 3. Warps, through shared memory.
  constexpr unsigned reduced_warps = plan::reduced_warps();
  if constexpr (reduced_warps != 0) {
    constexpr int groups = plan::warp_groups();
    constexpr int elements = 1 << RL::value.out_bits;
    Result* partials = shared_buffer<Result, groups * elements>();
    const unsigned warp = static_cast<unsigned>(warp_id());
    int group = 0;
    for (int i = 0, g = 0; i < warp_bits; ++i)
      if ((reduced_warps >> i) & 1) group |= static_cast<int>((warp >> i) & 1) << g++;
    // The first copy of each partial within its warp group writes it: the reduced lanes hold
    // copies now, as do the lanes and warps across which the operand was replicated.
    constexpr unsigned copy_lanes = RL::value.replicated_lanes();
    constexpr unsigned copy_warps = RL::value.replicated_warps() & ~reduced_warps;
    const bool writer =
        (static_cast<unsigned>(lane_id()) & copy_lanes) == 0 && (warp & copy_warps) == 0;
    const int base = thread_flat<RL>();
    __syncthreads();  // earlier readers of this buffer are done
    if (writer)
      static_for<RL::registers>([&](auto r) {
        partials[group * elements + flat_of<RL, decltype(r)::value>(base)] = out.storage.regs[r];
      });
    __syncthreads();
    static_for<RL::registers>([&](auto r) {
      const int flat = flat_of<RL, decltype(r)::value>(base);
      Result acc = partials[flat];
      for (int g = 1; g < groups; ++g)
        acc = static_cast<Result>(Op{}(acc, partials[g * elements + flat]));
      out.storage.regs[r] = acc;
    });
  }
  return out;
}

template <class Op, int Axis, bool Keep, class E>
__device__ __forceinline__ auto reduce(const E& x) {
  using S = shape_of_t<E>;
  constexpr auto b = bits_of<S>();
  const auto& data = as_data(x);
  return reduce_bits<Op, b.low_bit(Axis), b.log2_dims[Axis], reduced_shape_t<S, Axis, Keep>>(data);
}

template <class Op, class E>
__device__ __forceinline__ auto reduce_all(const E& x) {
  using S = shape_of_t<E>;
  const auto& data = as_data(x);
  return reduce_bits<Op, 0, bits_of<S>().total(), shape<>>(data);
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
