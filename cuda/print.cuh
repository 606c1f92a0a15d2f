// The GPU's side of tl::print (tile/print.hpp): none. A kernel that prints is a kernel being
// debugged, and the simulator is where to debug it, so a print in a GPU build is a compile error
// that says so, never a silent no-op.
#pragma once

#include <source_location>

#include "cuda/front_hooks.cuh"

namespace tl {
inline namespace TL_ABI {
namespace backend {

namespace print_detail {
template <class>
inline constexpr bool compiles_on_the_gpu = false;
}  // namespace print_detail

template <class E, class M>
TL_FN void print(const char*, const E&, const M&, const std::source_location&) {
  static_assert(print_detail::compiles_on_the_gpu<E>,
                "tl::print is simulator-only: remove it (or put it under #ifndef __CUDACC__) to "
                "build the kernel for the GPU, and see what it prints with 'tilepuzzles show N'");
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
