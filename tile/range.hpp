// tl::range: a counted loop whose loads the GPU may prefetch, like Triton's
// `tl.range(lo, hi, step, num_stages=3)`.
//
//   for (auto k : tl::range(0, K, BLOCK_K, tl::num_stages<3>)) {
//     auto ks = k + tl::arange<BLOCK_K>();
//     auto a = tl::load(x + rows.col() * K + ks.row(), ...);
//
// The loop variable is an index that converts to int, so scalar C++ with it works as with an
// int. Combined with a tile (`k + tl::arange<B>()`, `x + k`) it becomes a lazy leaf that holds
// the index and knows its range: a pointer or mask expression built from it can then be
// evaluated at a later iteration's index, by a copy with the leaf's index moved. The simulator runs
// the range as the plain loop it reads as; the GPU lowering (cuda/pipeline.cuh) uses that to
// copy the tiles of the iterations ahead into shared memory while the current one computes.
// With num_stages<1> (the default) nothing is prefetched.
#pragma once

#include <type_traits>

#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {

template <int Stages>
struct num_stages_t {
  static_assert(Stages >= 1 && Stages <= 8, "tl::num_stages<S>: S must be 1 to 8");
  static constexpr int value = Stages;
};
// How many iterations' loads are in flight at once (the current one included), as Triton's
// num_stages: 1 is a plain loop, 2 prefetches the next iteration's tiles, 3 the next two.
template <int Stages>
inline constexpr num_stages_t<Stages> num_stages{};

namespace backend {
// What a backend keeps per pipelined range (the simulator nothing; cuda/pipeline.cuh the
// bookkeeping of the copies in flight).
template <int Stages>
struct pipeline;
}  // namespace backend

// The state of one running range: its counter (read by the index leaves) and the backend's.
template <int Stages>
struct range_state {
  int current, hi, step;
  backend::pipeline<Stages> pipeline;

  TL_FN range_state(int lo, int end, int by) : current(lo), hi(end), step(by) {}

  TL_FN bool within(long long i) const { return step > 0 ? i < hi : i > hi; }
};

// The loop variable inside a tile expression: a rank-0 lazy int holding the iteration's index,
// and the range it came from, through which the GPU lowering finds the range's state and
// evaluates the expression at a later iteration's index (cuda/pipeline.cuh).
template <int Stages>
struct range_index_expr : expr_base<range_index_expr<Stages>> {
  using value_type = int;
  using shape_type = shape<>;
  static constexpr bool has_data = false;
  static constexpr bool may_poison = false;
  static constexpr int stages = Stages;
  int value;
  range_state<Stages>* range;
  TL_FN explicit range_index_expr(range_state<Stages>* r) : value(r->current), range(r) {}
  template <int R>
  TL_FN index_t eval(const pos<R>&) const {
    return value;
  }
  template <int R>
  TL_FN bool poison(const pos<R>&) const {
    return false;
  }
};

// The loop variable: an int to C++, a lazy leaf to tiles (the operators below take it on either
// side of a tile, at the operator's line, as expr_base's do).
#define TL_RANGE_INDEX_OPERATOR(sym, Op)                                                     \
  template <class E>                                                                         \
    requires is_expr_v<E>                                                                    \
  friend TL_FN auto operator sym(located<range_index> k, const E& e) {                       \
    return make_binary<op::Op>(k.e.tile(), e, k.loc);                                        \
  }                                                                                          \
  template <class E>                                                                         \
    requires is_expr_v<E>                                                                    \
  friend TL_FN auto operator sym(const E& e, located<range_index> k) {                       \
    return make_binary<op::Op>(e, k.e.tile(), k.loc);                                        \
  }
template <int Stages>
struct range_index {
  static constexpr int stages = Stages;
  range_state<Stages>* range;
  TL_FN operator int() const { return range->current; }
  TL_FN range_index_expr<Stages> tile() const { return range_index_expr<Stages>(range); }

  TL_RANGE_INDEX_OPERATOR(+, add)
  TL_RANGE_INDEX_OPERATOR(-, sub)
  TL_RANGE_INDEX_OPERATOR(*, mul)
  TL_RANGE_INDEX_OPERATOR(/, div)
  TL_RANGE_INDEX_OPERATOR(%, mod)
  TL_RANGE_INDEX_OPERATOR(<, less)
  TL_RANGE_INDEX_OPERATOR(<=, less_equal)
  TL_RANGE_INDEX_OPERATOR(>, greater)
  TL_RANGE_INDEX_OPERATOR(>=, greater_equal)
  TL_RANGE_INDEX_OPERATOR(==, equal)
  TL_RANGE_INDEX_OPERATOR(!=, not_equal)
};
#undef TL_RANGE_INDEX_OPERATOR

template <class T>
struct is_range_index : std::false_type {};
template <int S>
struct is_range_index<range_index<S>> : std::true_type {};
template <class T>
inline constexpr bool is_range_index_v = is_range_index<std::remove_cvref_t<T>>::value;

// A pointer advanced by the index: a rank-0 pointer tile whose offset is the index's leaf, so
// `x + k + tl::arange<B>()` stays something the GPU can prefetch.
template <class P, int St>
  requires is_ptr_v<P>
TL_FN auto operator+(const P& p, range_index<St> k) {
  return make_ptr_expr(p, k.tile());
}
template <class P, int St>
  requires is_ptr_v<P>
TL_FN auto operator+(range_index<St> k, const P& p) {
  return make_ptr_expr(p, k.tile());
}
template <class P, class Off, int St>
TL_FN auto operator+(const ptr_expr<P, Off>& p, range_index<St> k) {
  return make_ptr_expr(p.base, make_binary<op::add>(p.offsets, k.tile(), op_location{}));
}

template <int Stages>
class range_loop {
 public:
  struct sentinel {};
  class iterator {
   public:
    TL_FN iterator(int lo, int hi, int step) : state_(lo, hi, step) {}
    iterator(const iterator&) = delete;
    iterator& operator=(const iterator&) = delete;
    TL_FN range_index<Stages> operator*() {
      state_.pipeline.begin_iteration(state_);
      return {&state_};
    }
    TL_FN iterator& operator++() {
      state_.current += state_.step;
      return *this;
    }
    TL_FN bool operator!=(sentinel) const { return state_.step != 0 && state_.within(state_.current); }

   private:
    range_state<Stages> state_;
  };

  TL_FN range_loop(int lo, int hi, int step) : lo_(lo), hi_(hi), step_(step) {}
  TL_FN iterator begin() const { return iterator(lo_, hi_, step_); }
  TL_FN sentinel end() const { return {}; }

 private:
  int lo_, hi_, step_;
};

// tl::range(hi), tl::range(lo, hi), tl::range(lo, hi, step) and
// tl::range(lo, hi, step, tl::num_stages<S>): lo, lo + step, ... while below hi (above it for a
// negative step), as Python's range.
template <int Stages = 1>
TL_FN range_loop<Stages> range(int lo, int hi, int step, num_stages_t<Stages> = {},
                               std::source_location loc = std::source_location::current()) {
  // The simulator reports tl::range(lo, hi, 0); the GPU runs no iteration.
  if constexpr (backend::checks_lanes) {
    if (step == 0) backend::range_step_zero(loc);
  }
  (void)loc;
  return range_loop<Stages>(lo, hi, step);
}
TL_FN range_loop<1> range(int lo, int hi) { return range_loop<1>(lo, hi, 1); }
TL_FN range_loop<1> range(int hi) { return range_loop<1>(0, hi, 1); }

}  // namespace TL_ABI
}  // namespace tl
