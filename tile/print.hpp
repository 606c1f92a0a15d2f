// tl::print("name", x [, mask]): prints a tile or a tile expression (or a scalar) from every
// program that reaches it, like Triton's tl.device_print: the program id, the kernel line, the
// name, the dtype and shape, and the values, with poison lanes as `?` and the lanes an optional
// mask switches off as `-`. The simulator collects what is printed and `tilepuzzles show` prints
// it after the maps (`check`, which runs a kernel dozens of times, drops it).
//
// Simulator only: on the GPU tl::print does not compile, with a message that says so (a kernel
// that prints is a kernel being debugged, and the simulator is where to debug it).
#pragma once

#include <source_location>
#include <type_traits>

#include "tile/config.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"

#if TL_BACKEND_CPU
#include "simulator/print.hpp"
#endif

namespace tl {
inline namespace TL_ABI {

namespace detail {
template <class>
inline constexpr bool print_compiles_on_the_gpu = false;
}  // namespace detail

template <class E, class M = detail::no_mask>
TL_FN void print(const char* name, const E& x, const M& mask = {},
                 std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<E> || std::is_arithmetic_v<E>,
                "tl::print prints a tile, a tile expression or a scalar");
#if TL_BACKEND_CPU
  backend::print(name, x, detail::mask_operand(mask), loc);
#else
  static_assert(detail::print_compiles_on_the_gpu<E>,
                "tl::print is simulator-only: remove it (or put it under #ifndef __CUDACC__) to "
                "build the kernel for the GPU, and see what it prints with 'tilepuzzles show N'");
#endif
}

}  // namespace TL_ABI
}  // namespace tl
