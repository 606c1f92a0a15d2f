// tl::print("name", x [, mask]): prints a tile or a tile expression (or a scalar) from every
// program that reaches it, like Triton's tl.device_print: the program id, the kernel line, the
// name, the dtype and shape, and the values, with poison lanes as `?` and the lanes an optional
// mask switches off as `-`. The simulator collects what is printed and `tilepuzzles show` prints
// it after the maps (`check`, which runs a kernel dozens of times, drops it).
//
// Simulator only: on the GPU tl::print does not compile, with a message that says so (a kernel
// that prints is a kernel being debugged, and the simulator is where to debug it): each backend's
// `print` hook (simulator/print.hpp, cuda/print.cuh).
#pragma once

#include <source_location>
#include <type_traits>

#include "tile/config.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

template <class E, class M = detail::no_mask>
TL_FN void print(const char* name, const E& x, const M& mask = {},
                 std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<E> || std::is_arithmetic_v<E>,
                "tl::print prints a tile, a tile expression or a scalar");
  backend::print(name, x, detail::mask_operand(mask), loc);
}

}  // namespace TL_ABI
}  // namespace tl
