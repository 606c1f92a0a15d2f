// Runs one kernel instantiation of the GPU backend on its host emulation (cuda/host_emulation.hpp)
// for a launch_request, as checker/gpu_launch.cuh does on a GPU: outputs poisoned with NaN first, one
// block of 32 * num_warps threads per program. Every buffer has a guard zone on each side: a
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
#include "checker/launch.hpp"

namespace tp::emulated {

inline constexpr std::size_t guard = 64;
inline constexpr float guard_value = -12345.5f;

template <class Param>
Param kernel_argument(std::size_t index, std::vector<std::vector<float>>& buffers,
                      const std::vector<int>& sizes) {
  if constexpr (tl::is_ptr_v<Param>) {
    return Param{buffers.at(index).data() + guard};
  } else {
    return static_cast<Param>(sizes.at(index - buffers.size()));
  }
}

template <class Kernel>
std::string launch(const launch_request& request) {
  static_assert(Kernel::num_warps == TL_NUM_WARPS, "built for another warp count");
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  auto& tensors = *request.tensors;
  std::vector<std::vector<float>> buffers;
  for (auto& t : tensors) {
    std::vector<float> b(t.values.size() + 2 * guard, guard_value);
    for (std::size_t i = 0; i < t.values.size(); ++i)
      b[guard + i] = t.output ? std::numeric_limits<float>::quiet_NaN() : t.values[i];
    buffers.push_back(std::move(b));
  }
  tl::emulation::block block;
  const dim3 grid{static_cast<unsigned>(request.grid[0]), static_cast<unsigned>(request.grid[1]),
                  static_cast<unsigned>(request.grid[2])};
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        const std::string error = block.run({x, y, z}, grid, 32 * Kernel::num_warps, [&] {
          [&]<std::size_t... I>(std::index_sequence<I...>) {
            Kernel{}(kernel_argument<std::tuple_element_t<I, params>>(I, buffers, request.sizes)...);
          }(std::make_index_sequence<std::tuple_size_v<params>>{});
        });
        if (!error.empty())
          return "program (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                 std::to_string(z) + "): " + error;
      }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& b = buffers[i];
    for (std::size_t g = 0; g < guard; ++g)
      if (b[g] != guard_value || b[guard + tensors[i].values.size() + g] != guard_value)
        return "a store wrote outside tensor " + tensors[i].name;
    if (tensors[i].output)
      std::copy(b.begin() + guard, b.end() - guard, tensors[i].values.begin());
  }
  return {};
}

}  // namespace tp::emulated
