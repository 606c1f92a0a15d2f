// The index leaves of a lazy expression (tile/range.hpp's range_index_expr): which range they
// read, moving them to another iteration's index, and the rest of the expression's run-time state
// (its scalars and base pointers). Both backends replay a pipelined tl::range's prefetches with
// these: the GPU lowering to copy a later iteration's tile (cuda/pipeline.cuh), the simulator to
// check what that copy reads (simulator/prefetch.hpp).
#pragma once

#include <type_traits>
#include <utility>

#include "tile/range.hpp"

namespace tl {
inline namespace TL_ABI {

// The shared memory one pipelined load's stage buffer (its slots and bookkeeping words) may take
// on the GPU: a site whose range asks for more stages than fit gets fewer, none below 2. The GPU
// lowering (cuda/pipeline.cuh, cuda/operand_stages.cuh) and the simulator's replay of it
// (simulator/prefetch.hpp) both read these. The stages are in the kernel's shared-memory arena
// (cuda/shared_arena.cuh), 227 KiB at most; these budgets keep two operands' stages and dot's
// own staging within about half of a multiprocessor's 228 KiB, so that two blocks fit on one.
inline constexpr int max_stage_bytes = 16 * 1024;           // a load copied by each thread
inline constexpr int max_operand_stage_bytes = 48 * 1024;   // tl::dot's 16-bit operand, by the block

template <class E>
struct is_range_index_expr : std::false_type {};
template <int St>
struct is_range_index_expr<range_index_expr<St>> : std::true_type {};

// The stages of the range whose index E reads: 0 for none, -1 for indexes of ranges of
// different stages.
template <class E>
constexpr int index_stages() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_range_index_expr<X>::value) {
    return X::stages;
  } else {
    int found = 0;
    auto meet = [&](int s) {
      if (s == 0 || found == -1) return;
      found = found == 0 || found == s ? s : -1;
      if (s == -1) found = -1;
    };
    if constexpr (requires { typename X::c_type; }) meet(index_stages<typename X::c_type>());
    if constexpr (requires { typename X::a_type; }) meet(index_stages<typename X::a_type>());
    if constexpr (requires { typename X::b_type; }) meet(index_stages<typename X::b_type>());
    return found;
  }
}

// The range of the first index leaf of `e`; `several` when another leaf reads another range.
template <int St, class E>
TL_FN void find_range(const E& e, range_state<St>*& range, bool& several) {
  using X = std::remove_cvref_t<E>;
  if constexpr (std::is_same_v<X, range_index_expr<St>>) {
    if (range && range != e.range) several = true;
    range = e.range;
  } else {
    if constexpr (requires { typename X::c_type; }) find_range<St>(e.c, range, several);
    if constexpr (requires { typename X::a_type; }) find_range<St>(e.a, range, several);
    if constexpr (requires { typename X::b_type; }) find_range<St>(e.b, range, several);
  }
}

// Moves every index leaf of `e` (a copy of a load's expression) to iteration index `index`.
template <class E>
TL_FN void move_index(E& e, int index) {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_range_index_expr<X>::value) {
    e.value = index;
  } else if constexpr (requires { typename X::pointer_type; typename X::offsets_type; }) {
    move_index(e.offsets, index);
  } else {
    if constexpr (requires { typename X::c_type; }) move_index(e.c, index);
    if constexpr (requires { typename X::a_type; }) move_index(e.a, index);
    if constexpr (requires { typename X::b_type; }) move_index(e.b, index);
  }
}

// Calls `field` with each part of the run-time state of `e` besides its index leaves: its scalars
// and, for a pointer tile, the base address. Two expressions of one type with the same state
// compute the same lanes at the same index.
template <class E, class F>
TL_FN void for_each_state(const E& e, F&& field) {
  using X = std::remove_cvref_t<E>;
  if constexpr (requires { typename X::pointer_type; typename X::offsets_type; }) {
    field(e.base.address);
    for_each_state(e.offsets, field);
  } else if constexpr (is_range_index_expr<X>::value) {
  } else if constexpr (requires { e.value; }) {
    field(e.value);
  } else {
    if constexpr (requires { typename X::c_type; }) for_each_state(e.c, field);
    if constexpr (requires { typename X::a_type; }) for_each_state(e.a, field);
    if constexpr (requires { typename X::b_type; }) for_each_state(e.b, field);
  }
}

// The state of an expression of type E, in 32-bit words (a pointer's base takes 2).
template <class E>
constexpr int state_words() {
  using X = std::remove_cvref_t<E>;
  if constexpr (requires { typename X::pointer_type; typename X::offsets_type; }) {
    return 2 + state_words<typename X::offsets_type>();
  } else if constexpr (is_range_index_expr<X>::value) {
    return 0;
  } else if constexpr (requires { std::declval<X>().value; }) {
    return static_cast<int>((sizeof(std::declval<X>().value) + 3) / 4);
  } else {
    int n = 0;
    if constexpr (requires { typename X::c_type; }) n += state_words<typename X::c_type>();
    if constexpr (requires { typename X::a_type; }) n += state_words<typename X::a_type>();
    if constexpr (requires { typename X::b_type; }) n += state_words<typename X::b_type>();
    return n;
  }
}

}  // namespace TL_ABI
}  // namespace tl
