// What a launch of a kernel is made of, the same for both backends' launchers of a user's own
// kernels: the grid, and the parameters of the kernel's call operator with their rules.
// tl::simulate (simulator/simulate.hpp) runs a kernel in the simulator; tl::launch
// (cuda/launch.cuh) on the GPU. Kernels themselves never include this header.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tile/config.hpp"

namespace tl {
inline namespace TL_ABI {

// The programs of a launch along each axis, as Triton's grid: tl::grid{tl::cdiv(n, B)} for a 1-D
// grid, {g0, g1} or {g0, g1, g2}; an axis left out has one program. tl::program_id(0) runs over
// x, tl::program_id(1) over y, tl::program_id(2) over z.
struct grid {
  int x = 1;
  int y = 1;
  int z = 1;

  long long programs() const { return 1LL * x * y * z; }
};

// A grid with an axis of no programs or fewer is a mistake (often a cdiv of a size that is 0):
// neither backend would run anything, so both say so instead.
inline void check_grid(const grid& g, const char* launcher) {
  if (g.x < 1 || g.y < 1 || g.z < 1)
    throw std::invalid_argument(std::string(launcher) + ": the grid {" + std::to_string(g.x) +
                                ", " + std::to_string(g.y) + ", " + std::to_string(g.z) +
                                "} has an axis without programs; each axis needs at least one");
}

namespace launch_detail {
template <class Member>
struct call_operator_params;
template <class C, class... A>
struct call_operator_params<void (C::*)(A...) const> {
  using type = std::tuple<A...>;
};
}  // namespace launch_detail

// The parameters of a kernel's call operator, in order: tl::ptr<...> and scalars.
template <class Kernel>
using kernel_params_t =
    typename launch_detail::call_operator_params<decltype(&Kernel::operator())>::type;

// What both launchers ask of a kernel struct before they run it (docs/tl.md, "The kernel form").
template <class Kernel>
constexpr bool check_kernel_form() {
  static_assert(std::is_default_constructible_v<Kernel>,
                "tl: a kernel is a default-constructible struct: the launcher makes it with "
                "Kernel{}");
  static_assert(requires { Kernel::num_warps; },
                "tl: a kernel declares `static constexpr int num_warps` (GPU threads per program "
                "are 32 * num_warps)");
  static_assert(Kernel::num_warps >= 1 && Kernel::num_warps <= 32 &&
                    (Kernel::num_warps & (Kernel::num_warps - 1)) == 0,
                "tl: num_warps must be 1, 2, 4, 8, 16 or 32 (a power of two, as in Triton)");
  return true;
}

// A scalar argument as the kernel's parameter type, refused where the value does not fit (an
// `int` parameter given a std::size_t of 2^31 or more would otherwise wrap silently).
template <class Param, class Arg>
Param scalar_argument(const Arg& value, std::size_t index, const char* launcher) {
  static_assert(std::is_arithmetic_v<Param>,
                "tl: a kernel's parameters are tl::ptr<T> or scalars (int, float, ...)");
  static_assert(std::is_arithmetic_v<std::remove_cvref_t<Arg>>,
                "tl: this kernel parameter is a scalar: pass a number");
  if constexpr (std::is_integral_v<Param> && std::is_integral_v<std::remove_cvref_t<Arg>>) {
    if (!std::in_range<Param>(value))
      throw std::out_of_range(std::string(launcher) + ": argument " + std::to_string(index) +
                              " is " + std::to_string(value) +
                              ", outside the range of the kernel's integer parameter");
  } else {
    static_assert(!std::is_integral_v<Param> || std::is_integral_v<std::remove_cvref_t<Arg>>,
                  "tl: this kernel parameter is an integer: pass an integer, not a float");
  }
  return static_cast<Param>(value);
}

}  // namespace TL_ABI
}  // namespace tl
