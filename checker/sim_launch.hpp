// Runs one kernel instantiation in the simulator on a launch_request.
#pragma once

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/binding.hpp"
#include "checker/launch.hpp"
#include "simulator/launch.hpp"

namespace tp {

struct sim_outcome {
  tl::sim::launch_result result;
  std::vector<tl::sim::buffer> buffers;  // one per tensor, with shadow state and counters
};

using sim_launcher = sim_outcome (*)(const launch_request&, const tl::sim::launch_options&);

namespace detail {
template <class Param>
Param kernel_argument(std::size_t index, std::vector<tl::sim::buffer>& buffers,
                      const std::vector<int>& sizes) {
  if constexpr (tl::is_ptr_v<Param>) {
    static_assert(std::is_same_v<std::remove_const_t<typename Param::element_type>, float>,
                  "the checker passes float32 tensors: use tl::ptr<float> or tl::ptr<const float>");
    return Param{&buffers.at(index), 0};
  } else {
    static_assert(std::is_integral_v<Param>, "kernel parameters are tl::ptr<T> or int");
    return static_cast<Param>(sizes.at(index - buffers.size()));
  }
}
}  // namespace detail

template <class Kernel>
sim_outcome sim_launch(const launch_request& request, const tl::sim::launch_options& options) {
  using params = typename call_params<decltype(&Kernel::operator())>::type;
  sim_outcome out;
  auto& tensors = *request.tensors;
  out.buffers.reserve(tensors.size());
  for (auto& t : tensors) {
    if (t.output) std::fill(t.values.begin(), t.values.end(), std::numeric_limits<float>::quiet_NaN());
    out.buffers.emplace_back(t.name, t.shape, "float32", sizeof(float), t.values.data(), !t.output);
  }
  std::vector<tl::sim::buffer*> pointers;
  for (auto& b : out.buffers) pointers.push_back(&b);
  const Kernel kernel{};
  out.result = tl::sim::run_grid(request.grid, options, pointers, [&] {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      kernel(detail::kernel_argument<std::tuple_element_t<I, params>>(I, out.buffers,
                                                                      request.sizes)...);
    }(std::make_index_sequence<std::tuple_size_v<params>>{});
  });
  return out;
}

}  // namespace tp
