// Layout conversion: the same tile, its elements moved to the threads and registers of another
// layout.
//
// Where both layouts put every element in the same thread, only registers are renamed, at no
// cost. Otherwise the tile goes through shared memory: the first copy of each element is written
// at its flat index (padded by one word in 32, so that the column-wise reads of an mma layout do
// not all land in one bank), the block synchronizes, and every thread reads the elements its new
// registers hold. The buffer is shared by every conversion of the same element type and size in a
// kernel; the barrier in front of each conversion keeps one from overwriting what a previous one
// is still reading. Every thread of the program calls every conversion (kernel code is uniform),
// so no barrier is reachable by only some threads.
#pragma once

#include "cuda/runtime.cuh"

#include "cuda/layout.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/tile_storage.cuh"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// Shared memory for conversions, reductions and dot's staging, in the kernel's arena
// (cuda/shared_arena.cuh): one buffer per size in bytes, shared by every element type.
template <int Bytes>
struct shared_bytes_key;
template <int Bytes>
__device__ __forceinline__ void* shared_bytes() {
  return shared_region<shared_bytes_key<Bytes>, Bytes>();
}
template <class T, int Elements>
__device__ __forceinline__ T* shared_buffer() {
  constexpr int bytes = static_cast<int>((static_cast<long long>(Elements) * sizeof(T) + 15) / 16 * 16);
  return static_cast<T*>(shared_bytes<bytes>());
}

__device__ __forceinline__ constexpr int padded(int flat) { return flat + (flat >> 5); }

template <class S>
inline constexpr int padded_size = static_cast<int>(S::size + S::size / 32 + 1);

// The registers of a tile of shape S in layout To, from the same tile in layout From.
template <class To, class From, class T, class S>
__device__ __forceinline__ registers<T, S, To> convert(const registers<T, S, From>& in) {
  registers<T, S, To> out;
  if constexpr (layouts::same_threads(From::value, To::value)) {
    using map = constant<layouts::register_map<To::registers>(
        To::value, layouts::identity_map(From::value.out_bits), From::value)>;
    static_for<To::registers>([&](auto k) {
      out.regs[k] = in.regs[map::value[decltype(k)::value]];
    });
  } else {
    T* buffer = shared_buffer<T, padded_size<S>>();
    __syncthreads();  // earlier readers of this buffer are done
    if (holds_first_copy<From>()) {
      const int base = thread_flat<From>();
      static_for<From::registers>([&](auto k) {
        buffer[padded(flat_of<From, k>(base))] = in.regs[k];
      });
    }
    __syncthreads();
    const int base = thread_flat<To>();
    static_for<To::registers>([&](auto k) { out.regs[k] = buffer[padded(flat_of<To, k>(base))]; });
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
