// A kernel's compile-time facts as the checker's launchers see them: its block-size sets
// (`blocks<...>`, `typed_blocks<T, ...>`), the dtype of each tensor parameter, its call operator's
// parameters and the check that they are a puzzle's signature. Compiled by g++ (simulator) and
// nvcc (GPU) alike. Apart from checker/binding.hpp because it knows no puzzle: the launchers, and
// the puzzle modules' precompiled header with them, do not read the list of puzzles.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "checker/launch.hpp"
#include "tile/tl.hpp"

namespace tp {

// One set of compile-time block sizes, e.g. blocks<4, 128> for B0 = 4, B1 = 128.
template <int... B>
struct blocks {
  static constexpr tp::dtype dtype = tp::dtype::float32;
  static std::vector<int> values() { return {B...}; }
};

// The checker's dtype of a kernel's element type.
template <class T>
constexpr tp::dtype dtype_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, int> ||
                    std::is_same_v<U, tl::float16> || std::is_same_v<U, tl::bfloat16> ||
                    std::is_same_v<U, tl::int8> || std::is_same_v<U, tl::uint8>,
                "the checker passes float32, float16, bfloat16, int32, int8 and uint8 tensors: "
                "use tl::ptr<float>, tl::ptr<tl::float16>, tl::ptr<tl::bfloat16>, tl::ptr<int>, "
                "tl::ptr<tl::int8> or tl::ptr<tl::uint8> (const for inputs)");
  if constexpr (std::is_same_v<U, int>) return tp::dtype::int32;
  else if constexpr (std::is_same_v<U, tl::int8>) return tp::dtype::int8;
  else if constexpr (std::is_same_v<U, tl::uint8>) return tp::dtype::uint8;
  else if constexpr (std::is_same_v<U, tl::float16>) return tp::dtype::float16;
  else if constexpr (std::is_same_v<U, tl::bfloat16>) return tp::dtype::bfloat16;
  else return tp::dtype::float32;
}

// An element type and a set of block sizes, for kernels templated on both
// (template <class T, int B0, int B1> struct K): typed_blocks<tl::float16, 64, 32>.
template <class T, int... B>
struct typed_blocks {
  using element_type = T;
  static constexpr tp::dtype dtype = dtype_of<T>();
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

// The same for a kernel templated on its element type first (solutions::FlashAttention).
template <template <class, int...> class Kernel, class Blocks>
struct instantiate_typed;
template <template <class, int...> class Kernel, class T, int... B>
struct instantiate_typed<Kernel, typed_blocks<T, B...>> {
  using type = Kernel<T, B...>;
};
template <template <class, int...> class Kernel, class Blocks>
using instantiate_typed_t = typename instantiate_typed<Kernel, Blocks>::type;

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

// The signature a kernel instantiated with `Blocks` must have: the binding's `signature`, or for
// a typed binding (typed_blocks) its `signature_for<Blocks>`, which names the element type.
template <class Binding, class Blocks>
struct signature_of {
  using type = typename Binding::signature;
};
template <class Binding, class Blocks>
  requires requires { typename Binding::template signature_for<Blocks>; }
struct signature_of<Binding, Blocks> {
  using type = typename Binding::template signature_for<Blocks>;
};
template <class Binding, class Blocks>
using signature_of_t = typename signature_of<Binding, Blocks>::type;

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
