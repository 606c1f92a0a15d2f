// The hooks a backend supplies, as one concept: what the front (tile/) calls in `tl::backend`,
// with the arguments it passes. Each backend is checked against it by a static_assert in one unit
// (simulator/backend_hooks_check.cpp; for the GPU, the host emulation's units of its tests'
// kernels, tests/gpu/kernels.inc, where g++ compiles the same headers), so a hook that one backend lacks, or takes other arguments for,
// fails the build of that backend with the hook's name instead of the first kernel that needs it.
//
// A hook whose return type the backend deduces (`auto`) is instantiated to be checked: an error
// inside it is reported as that hook's error, not as the concept's. Not for nvcc, which may not
// name a __device__ function with a deduced return type outside a device function's body.
#pragma once

#include <concepts>
#include <source_location>
#include <type_traits>

#include "tile/tl.hpp"

namespace tl {
inline namespace TL_ABI {

// Read before the front: the half types, where an operation was written, and the reports of the
// lanes the front checks when the backend checks them (`checks_lanes`).
template <class = void>
concept backend_front_hooks = requires(const backend::op_location& where) {
  typename backend::float16;
  typename backend::bfloat16;
  requires sizeof(backend::float16) == 2 && sizeof(backend::bfloat16) == 2;
  requires std::is_convertible_v<std::source_location, backend::op_location>;
  requires std::is_same_v<std::remove_cv_t<decltype(backend::checks_lanes)>, bool>;
  backend::int32_step_overflow("+", 0LL, 0LL, 0LL, 0LL, static_cast<const int*>(nullptr), 1,
                               where);
  backend::int32_scalar_overflow(0LL, where);
  backend::int32_overflow(0LL, "what");
  backend::float_to_int32_overflow(0.0);
  backend::shift_count_out_of_range(0LL, "what");
  backend::range_step_zero(where);
  backend::float_turned_nonfinite("+", true, 0.0, 0.0, 0.0, where);
};

// Storage and the operations, for tiles of element type T.
template <class T>
concept backend_hooks_for =
    backend_front_hooks<> &&
    requires(tile<T, 16>& t, const tile<T, 16>& x, const tile<T>& scalar, ptr<T> p,
             const pos<1>& lane,
             const std::source_location& loc, typename backend::address_of<T>::type& address) {
      // What a pointer holds, what a data tile holds, and how one is made.
      backend::address_of<T>::advance(address, 16LL);
      requires sizeof(backend::storage<T, shape<16>,
                                       typename backend::declared_layout<shape<16>>::type>) > 0;
      requires std::is_same_v<std::remove_cv_t<decltype(backend::tracks_poison)>, bool>;
      backend::leave_unset(t);  // and, in the simulator, the line the tile was declared on
      requires !backend::checks_lanes || requires { backend::leave_unset(t, loc); };
      backend::fill(t, T{});
      backend::assign(t, x + x);
      { backend::lane_value(x, lane) } -> std::convertible_to<lane_t<T>>;
      { backend::lane_poison(x, lane) } -> std::convertible_to<bool>;
      backend::scalar_value(scalar);
      { backend::materialize(x + x) } -> std::convertible_to<tile<T, 16>>;
      // The operations of tile/ops.hpp and tile/print.hpp.
      { backend::program_id(0, loc) } -> std::same_as<int>;
      { backend::num_programs(0, loc) } -> std::same_as<int>;
      { backend::template no_other_value<T>() } -> std::convertible_to<T>;
      backend::template load<T, shape<16>, true>(
          as_ptr_expr(p + arange<16>()), detail::mask_operand(arange<16>() < 8),
          detail::other_operand<T>(0, backend::template no_other_value<T>()), loc);
      backend::template store<T, shape<16>>(as_ptr_expr(p + arange<16>()), x,
                                            detail::mask_operand(arange<16>() < 8), loc);
      backend::template reduce<op::add, 0, false>(x, loc);
      backend::template reduce<op::maximum, 0, true>(x, loc);
      backend::template reduce_all<op::minimum>(x, loc);
      { backend::template partner_lanes<0, 3>(x, loc) } -> std::convertible_to<tile<T, 16>>;
      backend::print("x", x, detail::mask_operand(detail::no_mask{}), loc);
      // A pipelined range keeps the backend's bookkeeping of its copies in flight.
      requires std::is_class_v<backend::pipeline<2>>;
    };

// tl::dot's hook, for the operand types it takes and their accumulator's (int for 8-bit ones).
template <class T, class Acc = float>
concept backend_dot_for = requires(const tile<T, 16, 16>& a, const std::source_location& loc) {
  backend::template dot<16, 16, 16, ieee_t>(a, a, zeros<Acc, 16, 16>(), loc);
};

// The atomics' hook (tile/atomic.hpp), for the element types they take, with each operation.
template <class T>
concept backend_atomic_for = requires(ptr<T> p, const tile<T, 16>& x,
                                      const std::source_location& loc) {
  { backend::template atomic<atomic_op::add, T, shape<16>>(
        as_ptr_expr(p + arange<16>()), x, x, detail::mask_operand(arange<16>() < 8), loc) }
      -> std::convertible_to<tile<T, 16>>;
  backend::template atomic<atomic_op::max, T, shape<16>>(
      as_ptr_expr(p + arange<16>()), x, x, detail::mask_operand(detail::no_mask{}), loc);
  backend::template atomic<atomic_op::min, T, shape<16>>(
      as_ptr_expr(p + arange<16>()), x, x, detail::mask_operand(detail::no_mask{}), loc);
  backend::template atomic<atomic_op::xchg, T, shape<16>>(
      as_ptr_expr(p + arange<16>()), x, x, detail::mask_operand(detail::no_mask{}), loc);
  backend::template atomic<atomic_op::cas, T, shape<16>>(
      as_ptr_expr(p + arange<16>()), x, x, detail::mask_operand(detail::no_mask{}), loc);
};

template <class = void>
concept tile_backend = backend_atomic_for<float> && backend_atomic_for<int> && backend_hooks_for<float> && backend_hooks_for<int> &&
                       backend_hooks_for<float16> && backend_hooks_for<bfloat16> &&
                       backend_hooks_for<int8> && backend_hooks_for<uint8> &&
                       backend_dot_for<float> && backend_dot_for<float16> &&
                       backend_dot_for<bfloat16> && backend_dot_for<int8, int> &&
                       backend_dot_for<uint8, int> && requires(const tile<float, 16, 16>& a) {
                         backend::template dot<16, 16, 16, tf32_t>(a, a, zeros<float, 16, 16>(),
                                                                   std::source_location{});
                       };

}  // namespace TL_ABI
}  // namespace tl
