// Where a program's tensor maps live. The copy engine reads a tensor map from global (or
// parameter) memory, never from shared memory, and a kernel makes its descriptors at run time
// from its own arguments, which the host never sees. So, as Triton does, each program builds its
// maps on the device (cuda/arch/tma.cuh) into global memory the launcher provides: a slot of
// `map_slot_bytes` per program, a header (how many maps the program has made in this launch, and
// how many in all, which the tests read) and room for `maps_per_program` maps.
//
// A program counts its maps from 0: the launcher clears the memory when it allocates it, and each
// program clears its count when it ends (release_tensor_maps, called by the kernel's wrapper in
// cuda/launch.cuh and by the emulation's launcher), so the next launch, also one replayed
// from a CUDA graph with no host call between, finds it 0.
//
// Each translation unit has its own `launch_tensor_maps` (a static __device__ variable), which
// its launcher sets before a launch (checker/gpu_launch.cuh, tl::launch in cuda/launch.cuh; the
// host emulation's launcher, tests/gpu/launch_emulated.hpp, sets the one variable of the
// process); it copies it to the device only when it changes. A launch that gets none, or a program past its maps, moves its
// descriptors' blocks the plain way: the same results, without the copy engine.
#pragma once

#include "cuda/runtime.cuh"

#include <cstddef>
#include <string>

#include "tile/config.hpp"

#if defined(TL_EMULATED_GPU)
#include <vector>
#endif

namespace tl {
inline namespace TL_ABI {
namespace cuda {

struct tensor_map_memory {
  unsigned char* base = nullptr;  // `programs` slots of map_slot_bytes
  unsigned programs = 0;
};

inline constexpr int maps_per_program = 8;
inline constexpr int map_bytes = 128;
inline constexpr int map_slot_bytes = map_bytes * (1 + maps_per_program);

#if defined(TL_EMULATED_GPU)
// Every emulated unit's kernels run on the host, in one process: one variable for all of them.
inline tensor_map_memory launch_tensor_maps;
#else
// No device code is linked across units: each has its own, which its own launcher sets.
static __device__ tensor_map_memory launch_tensor_maps;
#endif

// This program's header, or null where the launch has no memory for it.
__device__ __forceinline__ unsigned* tensor_map_header() {
  const tensor_map_memory memory = launch_tensor_maps;
  const unsigned program = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (!memory.base || program >= memory.programs) return nullptr;
  return reinterpret_cast<unsigned*>(memory.base + static_cast<std::size_t>(program) * map_slot_bytes);
}

// The 128 bytes of this program's next tensor map, or null where there are none left. Called by
// thread 0 only, which alone reads and writes its program's header.
__device__ __forceinline__ unsigned char* claim_tensor_map() {
  unsigned* const header = tensor_map_header();
  if (!header || header[0] >= static_cast<unsigned>(maps_per_program)) return nullptr;
  ++header[1];
  return reinterpret_cast<unsigned char*>(header) + map_bytes * (1 + header[0]++);
}

// The end of a program: its count of maps back to 0 for the next launch (thread 0, once every
// copy through the maps has landed, which each descriptor load waits for).
__device__ __forceinline__ void release_tensor_maps() {
  if (threadIdx.x != 0) return;
  unsigned* const header = tensor_map_header();
  if (header && header[0] != 0) header[0] = 0;
}

// The host side: memory for `programs` programs' maps, set for this unit's next launch. Empty,
// or what failed. On a GPU static (one per translation unit), as the variable it sets is.
#if defined(TL_EMULATED_GPU)
inline std::string provide_tensor_maps(long long programs) {
  static std::vector<unsigned char> memory;
  memory.assign(static_cast<std::size_t>(programs) * map_slot_bytes + map_bytes, 0);
  auto* base = memory.data() + (map_bytes - reinterpret_cast<std::size_t>(memory.data()) % map_bytes) % map_bytes;
  launch_tensor_maps = {base, static_cast<unsigned>(programs)};
  return {};
}
#else
static inline std::string provide_tensor_maps(long long programs) {
  static unsigned char* memory = nullptr;
  static std::size_t capacity = 0;
  static tensor_map_memory last{};
  const std::size_t bytes = static_cast<std::size_t>(programs) * map_slot_bytes;
  if (bytes > capacity) {
    // Launches of this unit run one after another on one stream, so the old memory is free once
    // the device is idle.
    if (memory) {
      cudaDeviceSynchronize();
      cudaFree(memory);
    }
    memory = nullptr;
    capacity = 0;
    if (auto e = cudaMalloc(&memory, bytes))
      return std::string("allocating the tensor maps' memory failed: ") + cudaGetErrorString(e);
    if (auto e = cudaMemset(memory, 0, bytes))
      return std::string("clearing the tensor maps' memory failed: ") + cudaGetErrorString(e);
    capacity = bytes;
  }
  const tensor_map_memory value{memory, static_cast<unsigned>(programs)};
  if (value.base == last.base && value.programs == last.programs) return {};
  // A unit whose kernels make no descriptor may have no such variable on the device: its
  // launches need none, and the error it leaves must not be taken for theirs.
  if (cudaMemcpyToSymbol(launch_tensor_maps, &value, sizeof value) != cudaSuccess) (void)cudaGetLastError();
  else last = value;
  return {};
}
#endif

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
