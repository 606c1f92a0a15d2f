// Where a program's tensor maps live. The copy engine reads a tensor map from global (or
// parameter) memory, never from shared memory, and a kernel makes its descriptors at run time
// from its own arguments, which the host never sees. So, as Triton does, each program builds its
// maps on the device (cuda/arch/tma.cuh) into global memory the launcher provides: a slot of
// `map_slot_bytes` per program, a header (the launch's epoch and how many maps the program made)
// and room for `maps_per_program` maps.
//
// Each translation unit has its own `launch_tensor_maps` (a static __device__ variable), which
// its launcher sets before a launch (checker/gpu_launch.cuh; the host emulation's launcher,
// tests/gpu/launch_emulated.hpp, sets the one variable of the process). A launch that gets
// none, or a program past its maps, moves its descriptors' blocks the plain way: the same
// results, without the copy engine.
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
  unsigned epoch = 0;             // the launch's: a header of another epoch counts no maps yet
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

// The 128 bytes of this program's next tensor map, or null where there are none left. Called by
// thread 0 only, which alone reads and writes its program's header.
__device__ __forceinline__ unsigned char* claim_tensor_map() {
  const tensor_map_memory memory = launch_tensor_maps;
  const unsigned program = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (!memory.base || program >= memory.programs) return nullptr;
  unsigned char* slot = memory.base + static_cast<std::size_t>(program) * map_slot_bytes;
  auto* header = reinterpret_cast<unsigned*>(slot);
  if (header[0] != memory.epoch) {
    header[0] = memory.epoch;
    header[1] = 0;
  }
  if (header[1] >= static_cast<unsigned>(maps_per_program)) return nullptr;
  return slot + map_bytes * (1 + header[1]++);
}

// The host side: memory for `programs` programs' maps, set for this unit's next launch. Empty,
// or what failed. On a GPU static (one per translation unit), as the variable it sets is.
#if defined(TL_EMULATED_GPU)
inline std::string provide_tensor_maps(long long programs) {
  static std::vector<unsigned char> memory;
  static unsigned epoch = 0;
  memory.assign(static_cast<std::size_t>(programs) * map_slot_bytes + map_bytes, 0);
  auto* base = memory.data() + (map_bytes - reinterpret_cast<std::size_t>(memory.data()) % map_bytes) % map_bytes;
  launch_tensor_maps = {base, static_cast<unsigned>(programs), ++epoch};
  return {};
}
#else
static inline std::string provide_tensor_maps(long long programs) {
  static unsigned char* memory = nullptr;
  static std::size_t capacity = 0;
  static unsigned epoch = 0;
  const std::size_t bytes = static_cast<std::size_t>(programs) * map_slot_bytes;
  if (bytes > capacity) {
    // Launches of this unit run one after another (the launcher waits for each), so the old
    // memory is free.
    if (memory) cudaFree(memory);
    memory = nullptr;
    capacity = 0;
    if (auto e = cudaMalloc(&memory, bytes))
      return std::string("allocating the tensor maps' memory failed: ") + cudaGetErrorString(e);
    if (auto e = cudaMemset(memory, 0, bytes))
      return std::string("clearing the tensor maps' memory failed: ") + cudaGetErrorString(e);
    capacity = bytes;
  }
  const tensor_map_memory value{memory, static_cast<unsigned>(programs), ++epoch};
  // A unit whose kernels make no descriptor may have no such variable on the device: its
  // launches need none, and the error it leaves must not be taken for theirs.
  if (cudaMemcpyToSymbol(launch_tensor_maps, &value, sizeof value) != cudaSuccess) (void)cudaGetLastError();
  return {};
}
#endif

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
