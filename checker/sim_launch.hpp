// Runs one kernel instantiation in the simulator on a launch_request.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/device_tensors.hpp"
#include "checker/kernel_signature.hpp"
#include "checker/launch.hpp"
#include "simulator/launch.hpp"

namespace tp {

struct sim_outcome {
  tl::sim::launch_result result;
  std::vector<tl::sim::buffer> buffers;  // one per tensor, with shadow state and counters
  // The float16 and bfloat16 tensors' bits while the kernel runs (one per tensor, empty for the
  // others), and the int8 and uint8 tensors' bytes: the buffers point into them.
  std::vector<std::vector<std::uint16_t>> half_bits;
  std::vector<std::vector<std::uint8_t>> byte_values;
};

using sim_launcher = sim_outcome (*)(const launch_request&, const tl::sim::launch_options&);

namespace detail {

template <class Half>
void to_half_bits(const std::vector<float>& values, std::vector<std::uint16_t>& bits) {
  bits.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Half h(values[i]);
    std::memcpy(&bits[i], static_cast<const void*>(&h), sizeof bits[i]);
  }
}

template <class Half>
void from_half_bits(const std::vector<std::uint16_t>& bits, std::vector<float>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    Half h;
    std::memcpy(static_cast<void*>(&h), &bits[i], sizeof bits[i]);
    values[i] = static_cast<float>(h);
  }
}

// A checked buffer over a tensor's values in its own dtype. Outputs start as NaN (floats) and
// never_written in the shadow state, whatever their dtype; a zeroed output (tensor::zeroed) as
// zeros the host wrote.
inline tl::sim::buffer buffer_for(tensor& t, std::vector<std::uint16_t>& half_bits,
                                   std::vector<std::uint8_t>& byte_values) {
  if (t.output && t.zeroed) {
    if (holds_ints(t.dtype)) t.ints.assign(static_cast<std::size_t>(t.count()), 0);
    std::fill(t.values.begin(), t.values.end(), 0.0f);
  }
  const bool poisoned = t.output && !t.zeroed;
  switch (t.dtype) {
    case dtype::int32:
      t.ints.resize(static_cast<std::size_t>(t.count()));
      return {t.name, t.shape, "int32", sizeof(std::int32_t), t.ints.data(), !poisoned};
    case dtype::int8:
    case dtype::uint8: {
      // Through the GPU's bytes (checker/device_tensors.hpp), which also check the values' range.
      t.ints.resize(static_cast<std::size_t>(t.count()));
      byte_values = device_tensors::bytes_of(t);
      return {t.name, t.shape, dtype_name(t.dtype), 1, byte_values.data(), !poisoned};
    }
    case dtype::float16:
    case dtype::bfloat16: {
      if (poisoned) std::fill(t.values.begin(), t.values.end(), std::numeric_limits<float>::quiet_NaN());
      if (t.dtype == dtype::float16) to_half_bits<tl::float16>(t.values, half_bits);
      else to_half_bits<tl::bfloat16>(t.values, half_bits);
      return {t.name, t.shape, dtype_name(t.dtype), sizeof(std::uint16_t), half_bits.data(),
              !poisoned};
    }
    default:
      if (poisoned) std::fill(t.values.begin(), t.values.end(), std::numeric_limits<float>::quiet_NaN());
      return {t.name, t.shape, "float32", sizeof(float), t.values.data(), !poisoned};
  }
}

template <class Param>
Param kernel_argument(std::size_t index, std::vector<tl::sim::buffer>& buffers,
                      const std::vector<tensor>& tensors, const std::vector<int>& sizes) {
  if constexpr (tl::is_ptr_v<Param>) {
    constexpr dtype expected = dtype_of<typename Param::element_type>();
    if (tensors.at(index).dtype != expected)
      throw std::logic_error("the kernel takes " + tensors[index].name + " as " +
                             dtype_name(expected) + " but the puzzle's tensor is " +
                             dtype_name(tensors[index].dtype));
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
  out.half_bits.resize(tensors.size());
  out.byte_values.resize(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (options.dry) {
      // Shapes only (launch_options::dry): the tensors hold no values.
      out.buffers.emplace_back(tensors[i].name, tensors[i].shape, dtype_name(tensors[i].dtype),
                               element_bytes(tensors[i].dtype), tl::sim::buffer::without_data_t{});
    } else {
      out.buffers.push_back(
          detail::buffer_for(tensors[i], out.half_bits[i], out.byte_values[i]));
    }
  }
  std::vector<tl::sim::buffer*> pointers;
  for (auto& b : out.buffers) pointers.push_back(&b);
  out.result = tl::sim::run_kernel<Kernel>(request.grid, options, pointers, [&] {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return params{detail::kernel_argument<std::tuple_element_t<I, params>>(
          I, out.buffers, tensors, request.sizes)...};
    }(std::make_index_sequence<std::tuple_size_v<params>>{});
  });
  for (std::size_t i = 0; i < tensors.size() && !options.dry; ++i) {
    if (!tensors[i].output) continue;
    if (tensors[i].dtype == dtype::float16)
      detail::from_half_bits<tl::float16>(out.half_bits[i], tensors[i].values);
    else if (tensors[i].dtype == dtype::bfloat16)
      detail::from_half_bits<tl::bfloat16>(out.half_bits[i], tensors[i].values);
    else if (tensors[i].dtype == dtype::int8 || tensors[i].dtype == dtype::uint8)
      device_tensors::read_back(tensors[i], out.byte_values[i].data());
  }
  return out;
}

}  // namespace tp
