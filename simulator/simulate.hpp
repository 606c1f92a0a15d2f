// tl::simulate: runs a user's own kernel in the CPU simulator with every check on, and returns
// what it found, for the user's own tests (docs/tl.md, "Using `tl` in your own code"):
//
//   std::vector<float> x = ..., z(n);
//   const tl::simulation run = tl::simulate<Scale<64>>(tl::grid{tl::cdiv(n, 64)},
//       tl::sim::input("x", x), tl::sim::output("z", z), n);
//   INFO(run.report());
//   CHECK(run.clean());
//
// A kernel's tl::ptr parameters take tensors named for the diagnostics (input, output, inout
// below), its scalar parameters numbers. The programs run through the grid runner the checker
// uses (tl::sim::run_kernel), so a user's kernel gets the puzzles' checks: out-of-bounds, races,
// poison, reads of what nothing wrote, int32 overflow, a program that never ends, and, after a
// clean launch, the elements of an output that nothing wrote.
#pragma once

#include "tile/config.hpp"

#if !TL_BACKEND_CPU
#error "simulator/simulate.hpp runs kernels in the CPU simulator: include it in a file that g++ \
compiles; a .cu file launches them on the GPU with cuda/launch.cuh"
#endif

#include <cstddef>
#include <limits>
#include <optional>
#include <ranges>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "simulator/launch.hpp"
#include "tile/launch.hpp"
#include "tile/tl.hpp"

namespace tl {
namespace sim {

// How a tensor starts and what the kernel owes it.
enum class tensor_role {
  input,   // written before the launch; a tl::ptr<const T> parameter takes only these
  output,  // unwritten: a read of an element before the kernel writes it is an error, and so
           // is an element the kernel never writes; floats start as NaN
  inout,   // written before the launch, and the kernel may write it (an update in place)
};

// A tensor handed to a simulated kernel: its elements (not owned: they must outlive the launch,
// and an output's are written in place), its name and shape in the diagnostics, and its role.
template <class T>
struct tensor_arg {
  std::string name;
  std::span<T> data;
  std::vector<long long> shape;
  tensor_role role;
};

namespace simulate_detail {
template <class Range>
auto make_tensor(std::string name, Range&& range, std::vector<long long> shape,
                 tensor_role role) {
  static_assert(std::is_lvalue_reference_v<Range> || std::ranges::borrowed_range<Range>,
                "tl::sim: a tensor's elements must outlive the launch: pass a named container "
                "or a std::span, not a temporary container");
  auto data = std::span(range);
  if (shape.empty()) shape = {static_cast<long long>(data.size())};
  long long count = 1;
  for (long long d : shape) count *= d;
  if (count != static_cast<long long>(data.size()))
    throw std::invalid_argument("tl::sim: tensor " + name + " has " +
                                std::to_string(data.size()) + " elements, but its shape holds " +
                                std::to_string(count));
  return tensor_arg<typename decltype(data)::element_type>{std::move(name), data,
                                                           std::move(shape), role};
}
}  // namespace simulate_detail

// A tensor the kernel reads: any contiguous range (std::vector, std::array, std::span), 1-D by
// default, or of `shape` (row-major) where the diagnostics should name elements as x[r, c].
template <class Range>
auto input(std::string name, Range&& data, std::vector<long long> shape = {}) {
  return simulate_detail::make_tensor(std::move(name), std::forward<Range>(data),
                                      std::move(shape), tensor_role::input);
}
// A tensor the kernel writes, every element of it.
template <class Range>
auto output(std::string name, Range&& data, std::vector<long long> shape = {}) {
  return simulate_detail::make_tensor(std::move(name), std::forward<Range>(data),
                                      std::move(shape), tensor_role::output);
}
// A tensor the kernel reads and may write.
template <class Range>
auto inout(std::string name, Range&& data, std::vector<long long> shape = {}) {
  return simulate_detail::make_tensor(std::move(name), std::forward<Range>(data),
                                      std::move(shape), tensor_role::inout);
}

// What one tensor saw in a launch.
struct tensor_summary {
  std::string name;
  buffer_counters counters;  // active lanes loaded and stored, bytes, masked-off lanes, ...
  long long unwritten = 0;   // elements nothing wrote, whatever the tensor's role
};

inline std::ostream& operator<<(std::ostream& out, const diagnostic& d) { return out << d.message; }

}  // namespace sim

inline namespace TL_ABI {

// What tl::simulate found.
struct simulation {
  // The first problem, with its kind (tl::sim::kind: "out-of-bounds", "race-write-write", ...),
  // program, buffer, kernel line, lanes and a message that explains it; the launch stops there.
  std::optional<sim::diagnostic> error;
  long long programs_run = 0;
  unsigned long long ops = 0;  // tile operations over all programs
  std::vector<sim::tensor_summary> tensors;  // in the kernel's parameter order

  bool clean() const { return !error; }
  // The error's kind, or "" for a clean launch.
  std::string kind() const { return error ? error->kind : std::string(); }
  // The error's message (several lines), or "clean": for a test's INFO or a failure's output.
  std::string report() const { return error ? error->message : std::string("clean"); }
  // The summary of the tensor named `name`.
  const sim::tensor_summary& tensor(const std::string& name) const {
    for (const auto& t : tensors)
      if (t.name == name) return t;
    throw std::out_of_range("tl::simulation: no tensor named " + name);
  }
};

namespace simulate_detail {

template <class T>
inline constexpr bool is_tensor_arg_v = false;
template <class T>
inline constexpr bool is_tensor_arg_v<sim::tensor_arg<T>> = true;

// The checked buffer of a tensor argument, in the order of the kernel's parameters.
template <class Param, class Arg>
void add_buffer(std::vector<sim::buffer>& buffers, Arg& arg) {
  if constexpr (is_ptr_v<Param>) {
    static_assert(is_tensor_arg_v<std::remove_cvref_t<Arg>>,
                  "tl::simulate: a tl::ptr parameter takes a tensor: pass tl::sim::input(name, "
                  "data), tl::sim::output(name, data) or tl::sim::inout(name, data)");
    using Elem = typename Param::element_type;
    using Data = typename decltype(arg.data)::element_type;
    static_assert(std::is_same_v<std::remove_const_t<Elem>, std::remove_const_t<Data>>,
                  "tl::simulate: the tensor's element type differs from the tl::ptr parameter's");
    static_assert(std::is_const_v<Elem> || !std::is_const_v<Data>,
                  "tl::simulate: this tl::ptr parameter writes its tensor, whose data is const");
    if (std::is_const_v<Elem> && arg.role != sim::tensor_role::input)
      throw std::invalid_argument("tl::simulate: " + arg.name + " goes to a tl::ptr<const T> "
                                  "parameter, which the kernel can only read: pass it as "
                                  "tl::sim::input");
    using Mutable = std::remove_const_t<Data>;
    if constexpr (is_floating_v<Mutable> && !std::is_const_v<Data>) {
      // As the checker does: an element the kernel forgets holds NaN, never a plausible value.
      if (arg.role == sim::tensor_role::output)
        for (auto& v : arg.data) v = Mutable(std::numeric_limits<float>::quiet_NaN());
    }
    buffers.emplace_back(arg.name, arg.shape, dtype_name<Mutable>(), sizeof(Mutable),
                         const_cast<Mutable*>(arg.data.data()),
                         arg.role != sim::tensor_role::output);
  }
}

// The kernel's argument for parameter `index`: a pointer to its buffer, or the scalar.
template <class Param, class Arg>
Param argument(std::size_t index, std::size_t& next_buffer, std::vector<sim::buffer>& buffers,
               const Arg& arg) {
  if constexpr (is_ptr_v<Param>) {
    return Param{&buffers[next_buffer++], 0};
  } else {
    return scalar_argument<Param>(arg, index, "tl::simulate");
  }
}

}  // namespace simulate_detail

// Runs `Kernel` in the simulator over `grid`, with `options` (the program order, its seed, the
// op budget: tl::sim::launch_options), one argument per parameter of its call operator.
template <class Kernel, class... Args>
simulation simulate(grid g, const sim::launch_options& options, Args&&... args) {
  static_assert(check_kernel_form<Kernel>());
  using params = kernel_params_t<Kernel>;
  static_assert(sizeof...(Args) == std::tuple_size_v<params>,
                "tl::simulate: pass one argument per parameter of the kernel's call operator");
  check_grid(g, "tl::simulate");

  std::vector<sim::buffer> buffers;
  buffers.reserve(sizeof...(Args));
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (simulate_detail::add_buffer<std::tuple_element_t<I, params>>(buffers, args), ...);
  }(std::index_sequence_for<Args...>{});
  std::vector<sim::buffer*> pointers;
  for (auto& b : buffers) pointers.push_back(&b);

  // The arguments are made once; a scalar that does not fit its parameter throws here, before
  // any program runs.
  std::size_t next_buffer = 0;
  const params arguments = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return params{simulate_detail::argument<std::tuple_element_t<I, params>>(
        I, next_buffer, buffers, args)...};
  }(std::index_sequence_for<Args...>{});

  const sim::launch_result result =
      sim::run_kernel<Kernel>({g.x, g.y, g.z}, options, pointers, [&] { return arguments; });

  simulation out;
  out.error = result.error;
  out.programs_run = result.programs_run;
  out.ops = result.ops;
  std::size_t b = 0;
  auto summarize = [&]<class Arg>(const Arg& arg) {
    if constexpr (simulate_detail::is_tensor_arg_v<std::remove_cvref_t<Arg>>) {
      const sim::buffer& buffer = buffers[b++];
      out.tensors.push_back({buffer.name(), buffer.counters, buffer.unwritten_count()});
      if (!out.error && arg.role == sim::tensor_role::output)
        out.error = sim::unwritten_output(buffer);
    }
  };
  (summarize(args), ...);
  return out;
}

namespace simulate_detail {
template <class... Args>
inline constexpr bool starts_with_options = false;
template <class First, class... Rest>
inline constexpr bool starts_with_options<First, Rest...> =
    std::is_same_v<std::remove_cvref_t<First>, sim::launch_options>;
}  // namespace simulate_detail

// The same in the default order (forward) with every check on.
template <class Kernel, class... Args>
  requires(!simulate_detail::starts_with_options<Args...>)
simulation simulate(grid g, Args&&... args) {
  return simulate<Kernel>(g, sim::launch_options{}, std::forward<Args>(args)...);
}

}  // namespace TL_ABI
}  // namespace tl
