// Runs one kernel instantiation of the GPU backend on its host emulation (cuda/host_emulation.hpp)
// for a launch_request, as checker/gpu_launch.cuh does on a GPU: each tensor in its dtype, outputs
// poisoned first, one block of 32 * num_warps threads per program. Every buffer has a guard zone on each side: a
// store outside the tensor is reported (a load outside it reads the guard and goes unseen here;
// compute-sanitizer's memcheck sees both on a GPU).
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/binding.hpp"
#include "checker/device_tensors.hpp"
#include "checker/launch.hpp"
#include "cuda/tensor_maps.cuh"

namespace tp::emulated {

inline constexpr std::size_t guard = 256;  // bytes on each side of a tensor
inline constexpr unsigned char guard_byte = 0xa5;

template <class Param>
Param kernel_argument(std::size_t index, std::vector<std::vector<unsigned char>>& buffers,
                      const std::vector<int>& sizes) {
  if constexpr (tl::is_ptr_v<Param>) {
    using Elem = std::remove_const_t<typename Param::element_type>;
    return Param{reinterpret_cast<Elem*>(buffers.at(index).data() + guard)};
  } else {
    return static_cast<Param>(sizes.at(index - buffers.size()));
  }
}

template <class... Params>
std::string dtype_mismatches(const std::vector<tensor>& tensors, std::tuple<Params...>*) {
  std::string problem;
  std::size_t index = 0;
  (
      [&] {
        if constexpr (tl::is_ptr_v<Params>) {
          if (problem.empty() && index < tensors.size())
            problem = device_tensors::dtype_mismatch(tensors[index],
                                                     dtype_of<typename Params::element_type>());
        }
        ++index;
      }(),
      ...);
  return problem;
}

template <class Kernel>
std::string launch(const launch_request& request) {
  static_assert(Kernel::num_warps == TL_NUM_WARPS, "built for another warp count");
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  auto& tensors = *request.tensors;
  if (auto problem = dtype_mismatches(tensors, static_cast<params*>(nullptr)); !problem.empty())
    return problem;
  // Each tensor in its dtype (outputs poisoned), in a buffer aligned like cudaMalloc's.
  std::vector<std::vector<unsigned char>> buffers;
  for (auto& t : tensors) {
    const auto bytes = device_tensors::bytes_of(t);
    std::vector<unsigned char> b(bytes.size() + 2 * guard, guard_byte);
    std::copy(bytes.begin(), bytes.end(), b.begin() + guard);
    buffers.push_back(std::move(b));
  }
  tl::emulation::block block;
  (void)tl::cuda::provide_tensor_maps(1LL * request.grid[0] * request.grid[1] * request.grid[2]);
  const dim3 grid{static_cast<unsigned>(request.grid[0]), static_cast<unsigned>(request.grid[1]),
                  static_cast<unsigned>(request.grid[2])};
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        const std::string error = block.run({x, y, z}, grid, 32 * Kernel::num_warps, [&] {
          [&]<std::size_t... I>(std::index_sequence<I...>) {
            Kernel{}(kernel_argument<std::tuple_element_t<I, params>>(I, buffers, request.sizes)...);
            tl::cuda::release_tensor_maps();
          }(std::make_index_sequence<std::tuple_size_v<params>>{});
        });
        if (!error.empty())
          return "program (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                 std::to_string(z) + "): " + error;
      }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& b = buffers[i];
    const std::size_t size = b.size() - 2 * guard;
    for (std::size_t g = 0; g < guard; ++g)
      if (b[g] != guard_byte || b[guard + size + g] != guard_byte)
        return "a store wrote outside tensor " + tensors[i].name;
    if (tensors[i].output) device_tensors::read_back(tensors[i], b.data() + guard);
  }
  return {};
}

}  // namespace tp::emulated
