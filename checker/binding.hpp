// What the checker knows about a puzzle's kernels at compile time: their signature and the block
// sizes they are instantiated with. Compiled by g++ (simulator) and nvcc (GPU) alike.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "tile/tl.hpp"

namespace tp {

// One set of compile-time block sizes, e.g. blocks<4, 128> for B0 = 4, B1 = 128.
template <int... B>
struct blocks {
  static std::vector<int> values() { return {B...}; }
};

template <class... Blocks>
struct block_list {};

// Instantiates a kernel template (e.g. solutions::LongSoftmax) with one set of block sizes.
template <template <int...> class Kernel, class Blocks>
struct instantiate;
template <template <int...> class Kernel, int... B>
struct instantiate<Kernel, blocks<B...>> {
  using type = Kernel<B...>;
};
template <template <int...> class Kernel, class Blocks>
using instantiate_t = typename instantiate<Kernel, Blocks>::type;

// The parameter types of a kernel's call operator.
template <class F>
struct call_params;
template <class C, class... A>
struct call_params<void (C::*)(A...) const> {
  using type = std::tuple<A...>;
};
template <class C, class... A>
struct call_params<void (C::*)(A...)> {
  using type = std::tuple<A...>;
};

template <class Signature>
struct signature_params;
template <class... A>
struct signature_params<void(A...)> {
  using type = std::tuple<A...>;
};

template <class Kernel, class Signature>
constexpr void check_kernel_signature() {
  static_assert(std::is_same_v<typename call_params<decltype(&Kernel::operator())>::type,
                               typename signature_params<Signature>::type>,
                "this kernel's parameters differ from the puzzle's: keep the stub's signature "
                "exactly (the same tl::ptr types, the same ints, in the same order)");
  static_assert(Kernel::num_warps >= 1 && Kernel::num_warps <= 32 &&
                    (Kernel::num_warps & (Kernel::num_warps - 1)) == 0,
                "num_warps must be 1, 2, 4, 8, 16 or 32 (a power of two, as in Triton; "
                "32 * num_warps threads per program)");
}

}  // namespace tp
