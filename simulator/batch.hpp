// Evaluating a tile expression for all its lanes at once, in loops the compiler vectorizes, instead
// of one lane at a time through the expression tree.
//
// `values_of<E>` evaluates every node of E once per element of the node's *effective* shape: the
// shape its lanes can differ over. `tl::arange<8>().col() * T` has effective shape [8, 1], and a
// constant has [1, ..., 1]; only where such pieces meet does the work grow to the full tile. A
// node's lanes are computed with the same per-lane functions as the lane-by-lane path
// (tile/lanes.hpp, through each node's `Op`), in the same types, so both give the same bits.
//
// The only difference from the lane-by-lane path is *which* lanes get evaluated: all of them, on
// both sides of a `where` and under a load's mask too. Those extra evaluations have no side
// effects, but one of them may raise a diagnostic (an int32 overflow in a lane nobody uses). So
// the simulator's operations catch `sim::kernel_error` from here and then redo the operation lane
// by lane, which reports exactly what it always did (simulator/backend.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "simulator/front_hooks.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"
#include "tile/range.hpp"
#include "tile/shape.hpp"
#include "tile/trans.hpp"
#include "simulator/diagnostic.hpp"
#include "simulator/exp.hpp"
#include "simulator/float_rows.hpp"

namespace tl {
inline namespace TL_ABI {
namespace batch {

// The type one lane of E evaluates to (lane_t of its value type).
template <class E>
using lane_of = std::remove_cvref_t<decltype(std::declval<const std::remove_cvref_t<E>&>().eval(
    std::declval<const pos<shape_of_t<E>::rank>&>()))>;

// Lanes of one node. Small tiles live on the stack; large ones (past 64 KiB) on the heap.
template <class L, long long N>
class lane_array {
  static constexpr bool on_heap = N * static_cast<long long>(sizeof(L)) > 64 * 1024;

 public:
  lane_array() {
    if constexpr (on_heap) heap_.reset(new L[N]);
  }
  lane_array(const lane_array&) = delete;
  lane_array& operator=(const lane_array&) = delete;
  L* data() {
    if constexpr (on_heap) return heap_.get();
    else return inline_.data();
  }
  const L* data() const {
    if constexpr (on_heap) return heap_.get();
    else return inline_.data();
  }
  L& operator[](long long i) { return data()[i]; }
  const L& operator[](long long i) const { return data()[i]; }

 private:
  struct none {};
  [[no_unique_address]] std::conditional_t<on_heap, std::unique_ptr<L[]>, none> heap_;
  alignas(64) std::conditional_t<on_heap, none, std::array<L, on_heap ? 1 : N>> inline_;
};

// The lanes a node computes: its own array, or the storage of the data tile being assigned when
// the node is the whole right-hand side (one copy fewer).
template <class L, long long N>
class output_lanes {
 public:
  explicit output_lanes(L* into) : into_(into) {}
  L* data() { return into_ ? into_ : own_.data(); }
  const L* data() const { return into_ ? into_ : own_.data(); }
  L& operator[](long long i) { return data()[i]; }

 private:
  L* into_;
  lane_array<L, N> own_;
};

namespace detail {
template <std::size_t... I>
auto ones(std::index_sequence<I...>) -> shape<((void)I, 1)...>;
}  // namespace detail

// shape<1, ..., 1> of rank R: the effective shape of a constant.
template <int R>
using ones_t = decltype(detail::ones(std::make_index_sequence<R>{}));

// ---------------------------------------------------------------------------------------------
// Broadcast loops: for every lane of SO in row-major order, f(out_index, in_index...) with each
// operand's index in its own shape (right-aligned, size-1 axes repeated). The innermost loop has
// compile-time strides (0 or 1 for the common cases), which is what the vectorizer needs.

template <class SO, class... SI>
struct broadcast_loop {
  static constexpr int rank = SO::rank;
  static constexpr int n = sizeof...(SI);

  template <class SA>
  static constexpr long long stride_of(int axis) {
    const int skip = rank - SA::rank;
    if (axis < skip) return 0;
    if (SA::dim(axis - skip) == 1) return 0;
    return SA::stride(axis - skip);
  }
  template <int Axis>
  static constexpr std::array<long long, n> strides{stride_of<SI>(Axis)...};

  template <class F>
  static void run(F&& f) {
    if constexpr (rank == 0) {
      call0(f, std::make_index_sequence<n>{});
    } else {
      std::array<long long, n> at{};
      level<0>(f, 0, at);
    }
  }

 private:
  template <class F, std::size_t... K>
  static void call0(F& f, std::index_sequence<K...>) {
    f(0LL, ((void)K, 0LL)...);
  }
  template <int Axis, class F>
  static void level(F& f, long long out, const std::array<long long, n>& at) {
    if constexpr (Axis == rank - 1) {
      innermost(f, out, at, std::make_index_sequence<n>{});
    } else {
      constexpr auto st = strides<Axis>;
      for (long long c = 0; c < SO::dim(Axis); ++c) {
        std::array<long long, n> next;
        for (int k = 0; k < n; ++k) next[k] = at[k] + c * st[k];
        level<Axis + 1>(f, out + c * SO::stride(Axis), next);
      }
    }
  }
  template <class F, std::size_t... K>
  static void innermost(F& f, long long out, const std::array<long long, n>& at,
                        std::index_sequence<K...>) {
    constexpr auto st = strides<rank - 1>;
    constexpr long long d = SO::dim(rank - 1);
    const std::array<long long, n> base = at;
    for (long long c = 0; c < d; ++c) f(out + c, (base[K] + c * st[K])...);
  }
};

// ---------------------------------------------------------------------------------------------
// The lane operations whose portable form branches (tile/lanes.hpp), without branches, so that
// loops over lanes vectorize and folds keep several lanes in flight. Each gives the bits of the
// operation it stands for, for every pair of operands (tests/simulator_bulk.cpp).

template <class Op>
struct branch_free {
  using type = Op;
};

// IEEE maximum and minimum on the bits: NaN (the canonical quiet NaN) when either operand is NaN,
// and -0 < +0. A float's bits, with the magnitude bits flipped when the sign is set, compare as
// signed integers in the float's order, -0 just below +0; integer compares and selects have no
// floating-point side effects, so the compiler turns them into vector code.
template <class F>
struct float_bits {
  using type = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
  static constexpr type magnitude = std::numeric_limits<type>::max();  // all but the sign bit
  static constexpr type infinity = sizeof(F) == 4 ? type(0x7f800000) : type(0x7ff0000000000000);
  static constexpr type quiet_nan = sizeof(F) == 4 ? type(0x7fc00000) : type(0x7ff8000000000000);
};

template <class F, bool Larger>
inline F ieee_extreme(F a, F b) {
  using B = float_bits<F>;
  using I = typename B::type;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  const I ka = ia ^ ((ia >> (8 * sizeof(I) - 1)) & B::magnitude);
  const I kb = ib ^ ((ib >> (8 * sizeof(I) - 1)) & B::magnitude);
  const bool take_b = Larger ? ka < kb : kb < ka;
  const bool nan = ((ia & B::magnitude) > B::infinity) | ((ib & B::magnitude) > B::infinity);
  I r = take_b ? ib : ia;
  r = nan ? B::quiet_nan : r;
  F out;
  std::memcpy(&out, &r, sizeof out);
  return out;
}

struct maximum_without_branches {
  template <class A, class B>
  auto operator()(A a, B b) const {
    if constexpr (std::is_floating_point_v<lanes::common_t<A, B>>) {
      using C = lanes::common_t<A, B>;
      return ieee_extreme<C, true>(static_cast<C>(a), static_cast<C>(b));
    } else {
      return op::maximum{}(a, b);
    }
  }
};
struct minimum_without_branches {
  template <class A, class B>
  auto operator()(A a, B b) const {
    if constexpr (std::is_floating_point_v<lanes::common_t<A, B>>) {
      using C = lanes::common_t<A, B>;
      return ieee_extreme<C, false>(static_cast<C>(a), static_cast<C>(b));
    } else {
      return op::minimum{}(a, b);
    }
  }
};
template <>
struct branch_free<op::maximum> {
  using type = maximum_without_branches;
};
template <>
struct branch_free<op::minimum> {
  using type = minimum_without_branches;
};
template <class Op>
using branch_free_t = typename branch_free<Op>::type;

// ---------------------------------------------------------------------------------------------
// values_of<E>: every lane of E over its effective shape.
//
// Each has `shape` (the effective shape, of E's rank), `lane` (what a lane evaluates to),
// `stored` (the element type of values(), converted to `lane` when read), `has_poison` (whether
// lanes can be poison at all), any_poison() (whether one is, at run time) and values(); poison()
// only when any_poison().

template <class E>
struct values_of;

template <class E>
using values_t = values_of<std::remove_cvref_t<E>>;

// Whether any of n flags is set: the C library's memchr, vectorized at any optimization level
// (a bool that is set is the byte 1).
inline bool any_set(const bool* flags, long long n) {
  return n > 0 && std::memchr(flags, 1, static_cast<std::size_t>(n)) != nullptr;
}

// Calls f(poison_of) with poison_of(i) the poison bit of lane i of v: a read of v's flags when
// some lane is poison, the constant false otherwise, so that clean tiles cost nothing.
template <class V, class F>
inline void with_poison(const V& v, F&& f) {
  if constexpr (V::has_poison) {
    if (v.any_poison()) {
      const bool* p = v.poison();
      f([p](long long i) { return p[i]; });
      return;
    }
  }
  f([](long long) { return false; });
}

// The value of lane i of an operand, as its own lane type (a data tile of int is read as index_t).
template <class V>
inline typename V::lane lane_at(const V& v, long long i) {
  return static_cast<typename V::lane>(v.values()[i]);
}

// Integer lanes of an operation that leaves int32 at a step (tile/expr.hpp's wrapping_symbol): the
// lane-by-lane path reports the step, with its line; here the operation gives up.
template <class Op, class Value, class L>
inline void require_int32_lanes(const L* lanes, long long n) {
  if constexpr (wrapping_symbol<Op> != nullptr && is_int32_lane_v<Value> &&
                is_integer_lane_v<L>) {
    bool outside = false;
    for (long long i = 0; i < n; ++i)
      outside |= (lanes[i] < std::numeric_limits<int>::min()) |
                 (lanes[i] > std::numeric_limits<int>::max());
    if (outside) throw sim::kernel_error(sim::diagnostic{});
  }
}

// Any node this file does not know: lane by lane through eval() and poison(), over its shape.
template <class E>
struct values_of {
  using shape = shape_of_t<E>;
  using lane = lane_of<E>;
  using stored = lane;
  static constexpr bool has_poison = E::may_poison;

  explicit values_of(const E& e) {
    pos<shape::rank> p{};
    p.slot = -1;
    for (long long i = 0; i < shape::size; ++i) {
      vals_[i] = e.eval(p);
      if constexpr (has_poison) pois_[i] = e.poison(p);
      for (int a = shape::rank - 1; a >= 0; --a) {
        if (++p.c[a] < shape::dim(a)) break;
        p.c[a] = 0;
      }
    }
    if constexpr (has_poison) any_ = any_set(pois_.data(), shape::size);
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return pois_.data(); }

 private:
  lane_array<lane, shape::size> vals_;
  lane_array<bool, has_poison ? shape::size : 1> pois_;
  bool any_ = false;
};

// A constant: one lane.
template <class T, class S>
struct constant_values {
  using shape = S;
  using lane = lane_t<T>;
  using stored = lane;
  static constexpr bool has_poison = false;
  explicit constant_values(T v) : v_(static_cast<lane>(v)) {}
  const stored* values() const { return &v_; }
  bool any_poison() const { return false; }
  const bool* poison() const { return nullptr; }

 private:
  lane v_;
};

template <class T>
struct values_of<scalar_expr<T>> : constant_values<T, tl::shape<>> {
  explicit values_of(const scalar_expr<T>& e) : constant_values<T, tl::shape<>>(e.value) {}
};

template <class T, class S>
struct values_of<full_expr<T, S>> : constant_values<T, ones_t<S::rank>> {
  explicit values_of(const full_expr<T, S>& e) : constant_values<T, ones_t<S::rank>>(e.value) {}
};

template <int N>
struct values_of<arange_expr<N>> {
  using shape = tl::shape<N>;
  using lane = index_t;
  using stored = lane;
  static constexpr bool has_poison = false;
  explicit values_of(const arange_expr<N>&) {
    for (int i = 0; i < N; ++i) vals_[i] = i;
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return false; }
  const bool* poison() const { return nullptr; }

 private:
  lane_array<lane, N> vals_;
};

// A data tile: its own storage, read in place.
template <class T, class S, class Layout>
struct values_of<basic_tile<T, S, Layout>> {
  using shape = S;
  using lane = lane_t<T>;
  using stored = T;
  static constexpr bool has_poison = basic_tile<T, S, Layout>::may_poison;
  explicit values_of(const basic_tile<T, S, Layout>& t)
      : tile_(t), any_(any_set(t.storage.poison.data(), S::size)) {}
  const stored* values() const { return tile_.storage.values.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return tile_.storage.poison.data(); }

 private:
  const basic_tile<T, S, Layout>& tile_;
  bool any_;
};

// A new axis of size 1 does not move any lane in row-major order: the child's lanes, reshaped.
template <int Axis, class A>
struct values_of<expand_expr<Axis, A>> : values_t<A> {
  using base = values_t<A>;
  using shape = decltype(tl::detail::expanded_shape<Axis, typename base::shape>(
      std::make_index_sequence<base::shape::rank + 1>{}));
  explicit values_of(const expand_expr<Axis, A>& e) : base(e.a) {}
};

// A transpose: the operand's lanes and poison bits, in the transposed order (a constant operand
// has one lane, of shape [1, 1], and stays one).
template <class A>
struct values_of<trans_expr<A>> {
  using a_values = values_t<A>;
  static constexpr int R = a_values::shape::dim(0), C = a_values::shape::dim(1);
  using shape = tl::shape<C, R>;
  using lane = typename a_values::lane;
  using stored = typename a_values::stored;
  static constexpr bool has_poison = a_values::has_poison;

  explicit values_of(const trans_expr<A>& e) {
    const a_values a(e.a);
    const stored* v = a.values();
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) vals_[static_cast<long long>(j) * R + i] = v[static_cast<long long>(i) * C + j];
    if constexpr (has_poison) {
      any_ = a.any_poison();
      if (any_) {
        const bool* p = a.poison();
        for (int i = 0; i < R; ++i)
          for (int j = 0; j < C; ++j) pois_[static_cast<long long>(j) * R + i] = p[static_cast<long long>(i) * C + j];
      }
    }
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return pois_.data(); }

 private:
  lane_array<stored, shape::size> vals_;
  lane_array<bool, has_poison ? shape::size : 1> pois_;
  bool any_ = false;
};

// Elementwise on one operand: Op (or a cast) applied to each lane; poison is the operand's.
template <class A, class Lane, class F>
struct mapped_values {
  using a_values = values_t<A>;
  using shape = typename a_values::shape;
  using lane = Lane;
  using stored = lane;
  static constexpr bool has_poison = a_values::has_poison;

  static constexpr bool writes_into = true;

  template <class Node>
  explicit mapped_values(const Node& e, lane* into = nullptr) : a_(e.a), vals_(into) {
    const auto* pa = a_.values();
    using LA = typename a_values::lane;
    auto* out = vals_.data();
    for (long long i = 0; i < shape::size; ++i) out[i] = static_cast<lane>(F{}(static_cast<LA>(pa[i])));
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return a_.any_poison(); }
  const bool* poison() const { return a_.poison(); }

 private:
  a_values a_;
  output_lanes<lane, shape::size> vals_;
};

template <class Op, class A>
struct values_of<unary_expr<Op, A>> : mapped_values<A, lane_of<unary_expr<Op, A>>, Op> {
  using base = mapped_values<A, lane_of<unary_expr<Op, A>>, Op>;
  explicit values_of(const unary_expr<Op, A>& e, typename base::lane* into = nullptr)
      : base(e, into) {
    require_int32_lanes<Op, typename unary_expr<Op, A>::value_type>(this->values(),
                                                                    base::shape::size);
  }
};

// e^x of float lanes: all of them in one call to the vectorized expf, the same bits as Op.
template <class A>
  requires std::is_same_v<typename values_t<A>::lane, float>
struct values_of<unary_expr<op::exp, A>> {
  using a_values = values_t<A>;
  using shape = typename a_values::shape;
  using lane = float;
  using stored = float;
  static constexpr bool has_poison = a_values::has_poison;

  static constexpr bool writes_into = true;

  explicit values_of(const unary_expr<op::exp, A>& e, float* into = nullptr)
      : a_(e.a), vals_(into) {
    if constexpr (std::is_same_v<typename a_values::stored, float>) {
      sim::exp_lanes(a_.values(), vals_.data(), shape::size);
    } else {
      for (long long i = 0; i < shape::size; ++i) vals_[i] = lane_at(a_, i);
      sim::exp_lanes(vals_.data(), vals_.data(), shape::size);
    }
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return a_.any_poison(); }
  const bool* poison() const { return a_.poison(); }

 private:
  a_values a_;
  output_lanes<float, shape::size> vals_;
};

template <class T, class A>
struct values_of<cast_expr<T, A>> : mapped_values<A, lane_t<T>, op::cast_to<T>> {
  using base = mapped_values<A, lane_t<T>, op::cast_to<T>>;
  explicit values_of(const cast_expr<T, A>& e, typename base::lane* into = nullptr)
      : base(e, into) {}
};

// A float addition, subtraction or multiplication of float lanes whose operands are each the
// whole shape S or one row of it broadcast over the rows: handed to sim::float_rows (its vectors
// are the CPU's widest, which matters for subnormal lanes). row_stride: an operand's step from
// one row to the next, 0 for a broadcast row.
template <class Op>
inline constexpr sim::float_op float_op_of = std::is_same_v<Op, op::add>   ? sim::float_op::add
                                             : std::is_same_v<Op, op::sub> ? sim::float_op::sub
                                                                           : sim::float_op::mul;
template <class S, class SX>
constexpr long long row_stride() {
  if constexpr (std::is_same_v<S, SX>) {
    return S::rank == 0 ? 0 : S::dim(S::rank - 1);
  } else {
    if constexpr (SX::rank != S::rank || S::rank == 0) return -1;
    else {
      if (SX::dim(S::rank - 1) != S::dim(S::rank - 1)) return -1;
      for (int i = 0; i + 1 < S::rank; ++i)
        if (SX::dim(i) != 1) return -1;
      return 0;
    }
  }
}
template <class Op, class S, class VA, class VB>
constexpr bool float_rows_apply() {
  if constexpr (!(std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
                  std::is_same_v<Op, op::mul>))
    return false;
  else if constexpr (!std::is_same_v<typename VA::stored, float> ||
                     !std::is_same_v<typename VA::lane, float> ||
                     !std::is_same_v<typename VB::stored, float> ||
                     !std::is_same_v<typename VB::lane, float>)
    return false;
  else
    return S::size >= 128 && row_stride<S, typename VA::shape>() >= 0 &&
           row_stride<S, typename VB::shape>() >= 0;
}

template <class Op, class A, class B>
struct values_of<binary_expr<Op, A, B>> {
  using node = binary_expr<Op, A, B>;
  using a_values = values_t<A>;
  using b_values = values_t<B>;
  using shape = broadcast_t<typename a_values::shape, typename b_values::shape>;
  using lane = lane_of<node>;
  using stored = lane;
  static constexpr bool op_poisons = Op::template may_poison<typename node::value_type>;
  static constexpr bool has_poison =
      node::may_poison && (a_values::has_poison || b_values::has_poison || op_poisons);

  static constexpr bool writes_into = true;

  explicit values_of(const node& e, lane* into = nullptr) : a_(e.a), b_(e.b), vals_(into) {
    using LA = typename a_values::lane;
    using LB = typename b_values::lane;
    using loop = broadcast_loop<shape, typename a_values::shape, typename b_values::shape>;
    const auto* pa = a_.values();
    const auto* pb = b_.values();
    auto* out = vals_.data();
    if constexpr (float_rows_apply<Op, shape, a_values, b_values>()) {
      constexpr long long cols = shape::dim(shape::rank - 1);
      sim::float_rows(float_op_of<Op>, pa, row_stride<shape, typename a_values::shape>(), pb,
                      row_stride<shape, typename b_values::shape>(), out, shape::size / cols,
                      cols);
    } else {
      loop::run([&](long long o, long long ia, long long ib) {
        out[o] = static_cast<lane>(branch_free_t<Op>{}(static_cast<LA>(pa[ia]), static_cast<LB>(pb[ib])));
      });
    }
    require_int32_lanes<Op, typename node::value_type>(out, shape::size);
    if constexpr (has_poison) {
      if (op_poisons || a_.any_poison() || b_.any_poison()) {
        auto* po = pois_.data();
        with_poison(a_, [&](auto poison_a) {
          with_poison(b_, [&](auto poison_b) {
            loop::run([&](long long o, long long ia, long long ib) {
              bool p = poison_a(ia) | poison_b(ib);
              if constexpr (op_poisons) p = p | Op::poisons(static_cast<LB>(pb[ib]));
              po[o] = p;
            });
          });
        });
        any_ = any_set(po, shape::size);
      }
    }
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return pois_.data(); }

 private:
  a_values a_;
  b_values b_;
  output_lanes<lane, shape::size> vals_;
  lane_array<bool, has_poison ? shape::size : 1> pois_;
  bool any_ = false;
};

template <class C, class A, class B>
struct values_of<where_expr<C, A, B>> {
  using node = where_expr<C, A, B>;
  using c_values = values_t<C>;
  using a_values = values_t<A>;
  using b_values = values_t<B>;
  using shape = broadcast_t<typename c_values::shape, typename a_values::shape,
                            typename b_values::shape>;
  using lane = lane_t<typename node::value_type>;
  using stored = lane;
  static constexpr bool has_poison =
      node::may_poison && (c_values::has_poison || a_values::has_poison || b_values::has_poison);

  static constexpr bool writes_into = true;

  explicit values_of(const node& e, lane* into = nullptr)
      : c_(e.c), a_(e.a), b_(e.b), vals_(into) {
    using loop = broadcast_loop<shape, typename c_values::shape, typename a_values::shape,
                                typename b_values::shape>;
    auto* out = vals_.data();
    loop::run([&](long long o, long long ic, long long ia, long long ib) {
      const bool take_a = static_cast<bool>(lane_at(c_, ic));
      const lane va = static_cast<lane>(lane_at(a_, ia));
      const lane vb = static_cast<lane>(lane_at(b_, ib));
      out[o] = take_a ? va : vb;
    });
    if constexpr (has_poison) {
      if (c_.any_poison() || a_.any_poison() || b_.any_poison()) {
        // Only the chosen side's poison counts: where(mask, x, 0) is how poison is cleaned up.
        auto* po = pois_.data();
        with_poison(c_, [&](auto poison_c) {
          with_poison(a_, [&](auto poison_a) {
            with_poison(b_, [&](auto poison_b) {
              loop::run([&](long long o, long long ic, long long ia, long long ib) {
                const bool take_a = static_cast<bool>(lane_at(c_, ic));
                po[o] = poison_c(ic) | (take_a & poison_a(ia)) | (!take_a & poison_b(ib));
              });
            });
          });
        });
        any_ = any_set(po, shape::size);
      }
    }
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return pois_.data(); }

 private:
  c_values c_;
  a_values a_;
  b_values b_;
  output_lanes<lane, shape::size> vals_;
  lane_array<bool, has_poison ? shape::size : 1> pois_;
  bool any_ = false;
};

// Three operands (tl::fma): Op on each lane of the broadcast, poison where any operand's is.
template <class Op, class A, class B, class C>
struct values_of<ternary_expr<Op, A, B, C>> {
  using node = ternary_expr<Op, A, B, C>;
  using a_values = values_t<A>;
  using b_values = values_t<B>;
  using c_values = values_t<C>;
  using shape = broadcast_t<typename a_values::shape, typename b_values::shape,
                            typename c_values::shape>;
  using lane = lane_of<node>;
  using stored = lane;
  static constexpr bool has_poison =
      node::may_poison && (a_values::has_poison || b_values::has_poison || c_values::has_poison);

  static constexpr bool writes_into = true;

  explicit values_of(const node& e, lane* into = nullptr)
      : a_(e.a), b_(e.b), c_(e.c), vals_(into) {
    using loop = broadcast_loop<shape, typename a_values::shape, typename b_values::shape,
                                typename c_values::shape>;
    auto* out = vals_.data();
    loop::run([&](long long o, long long ia, long long ib, long long ic) {
      out[o] = static_cast<lane>(Op{}(lane_at(a_, ia), lane_at(b_, ib), lane_at(c_, ic)));
    });
    if constexpr (has_poison) {
      if (a_.any_poison() || b_.any_poison() || c_.any_poison()) {
        auto* po = pois_.data();
        with_poison(a_, [&](auto poison_a) {
          with_poison(b_, [&](auto poison_b) {
            with_poison(c_, [&](auto poison_c) {
              loop::run([&](long long o, long long ia, long long ib, long long ic) {
                po[o] = poison_a(ia) | poison_b(ib) | poison_c(ic);
              });
            });
          });
        });
        any_ = any_set(po, shape::size);
      }
    }
  }
  const stored* values() const { return vals_.data(); }
  bool any_poison() const { return any_; }
  const bool* poison() const { return pois_.data(); }

 private:
  a_values a_;
  b_values b_;
  c_values c_;
  output_lanes<lane, shape::size> vals_;
  lane_array<bool, has_poison ? shape::size : 1> pois_;
  bool any_ = false;
};

// ---------------------------------------------------------------------------------------------
// Affine index expressions: base + sum of stride[a] * c[a] over the lane's coordinates c.
//
// Offsets and masks are mostly built from tl::arange, scalars, +, - and * by a constant, and
// .col()/.row(): such an expression is affine, and its form says at once which elements a tile
// addresses, whether its rows are consecutive, and its smallest and largest lane, without
// evaluating a lane. +, - and * on integer lanes wrap around in 64 bits in the lane-by-lane path
// and raise nothing; the form, computed with the same wrapping arithmetic, gives every lane's
// value bit for bit. Extremes are only trusted while nothing can wrap (see in_safe_range).

template <int R>
struct affine_form {
  long long base = 0;
  std::array<long long, (R > 0 ? R : 1)> stride{};
};

namespace detail {
inline long long wrapping_add(long long a, long long b) {
  return static_cast<long long>(static_cast<unsigned long long>(a) +
                                static_cast<unsigned long long>(b));
}
inline long long wrapping_mul(long long a, long long b) {
  return static_cast<long long>(static_cast<unsigned long long>(a) *
                                static_cast<unsigned long long>(b));
}
template <class E>
inline constexpr bool integer_valued =
    std::is_integral_v<typename E::value_type> && !std::is_same_v<typename E::value_type, bool>;
}  // namespace detail

template <class S>
inline bool affine_range(const affine_form<S::rank>& f, long long& lo, long long& hi);

template <class E>
struct affine : std::false_type {};

template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
struct affine<scalar_expr<T>> : std::true_type {
  static affine_form<0> of(const scalar_expr<T>& e) { return {static_cast<long long>(e.value), {}}; }
};
template <class T, class S>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
struct affine<full_expr<T, S>> : std::true_type {
  static affine_form<S::rank> of(const full_expr<T, S>& e) {
    return {static_cast<long long>(e.value), {}};
  }
};
template <int N>
struct affine<arange_expr<N>> : std::true_type {
  static affine_form<1> of(const arange_expr<N>&) { return {0, {1}}; }
};
template <int Axis, class A>
  requires affine<std::remove_cvref_t<A>>::value
struct affine<expand_expr<Axis, A>> : std::true_type {
  static affine_form<shape_of_t<A>::rank + 1> of(const expand_expr<Axis, A>& e) {
    const auto a = affine<std::remove_cvref_t<A>>::of(e.a);
    affine_form<shape_of_t<A>::rank + 1> f;
    f.base = a.base;
    for (int i = 0, j = 0; i < shape_of_t<A>::rank + 1; ++i) f.stride[i] = i == Axis ? 0 : a.stride[j++];
    return f;
  }
};
// A constant: a scalar or a full tile.
template <class E>
inline constexpr bool constant_v = false;
template <class T>
inline constexpr bool constant_v<scalar_expr<T>> = true;
template <class T, class S>
inline constexpr bool constant_v<full_expr<T, S>> = true;

// A tl::range's index: one int for the whole tile (the iteration's), as a scalar is.
template <int Stages>
struct affine<range_index_expr<Stages>> : std::true_type {
  static affine_form<0> of(const range_index_expr<Stages>& e) {
    return {static_cast<long long>(e.value), {}};
  }
};
template <int Stages>
inline constexpr bool constant_v<range_index_expr<Stages>> = true;

template <class E>
inline constexpr bool affine_v = affine<std::remove_cvref_t<E>>::value;

// The form of E's lanes as a function of the coordinates of S, a shape E broadcasts to
// (right-aligned; an axis where E has size 1 contributes nothing).
template <class S, class E>
inline affine_form<S::rank> affine_in(const E& e) {
  using ES = shape_of_t<E>;
  const auto f = affine<std::remove_cvref_t<E>>::of(e);
  affine_form<S::rank> g;
  g.base = f.base;
  for (int i = 0; i < S::rank; ++i) {
    const int j = i - (S::rank - ES::rank);
    g.stride[i] = j < 0 || ES::dim(j) == 1 ? 0 : f.stride[j];
  }
  return g;
}

template <class Op, class A, class B>
  requires(detail::integer_valued<binary_expr<Op, A, B>> && affine_v<A> && affine_v<B> &&
           (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub> ||
            (std::is_same_v<Op, op::mul> &&
             (constant_v<std::remove_cvref_t<A>> || constant_v<std::remove_cvref_t<B>>))))
struct affine<binary_expr<Op, A, B>> : std::true_type {
  using node = binary_expr<Op, A, B>;
  using S = shape_of_t<node>;
  static affine_form<S::rank> of(const node& e) {
    const auto a = affine_in<S>(e.a);
    const auto b = affine_in<S>(e.b);
    affine_form<S::rank> f;
    if constexpr (std::is_same_v<Op, op::mul>) {
      // One side is a constant: its base is its value, its strides are zero.
      f.base = detail::wrapping_mul(a.base, b.base);
      for (int i = 0; i < S::rank; ++i)
        f.stride[i] = detail::wrapping_add(detail::wrapping_mul(a.base, b.stride[i]),
                                           detail::wrapping_mul(a.stride[i], b.base));
    } else {
      const long long sign = std::is_same_v<Op, op::sub> ? -1 : 1;
      f.base = detail::wrapping_add(a.base, detail::wrapping_mul(sign, b.base));
      for (int i = 0; i < S::rank; ++i)
        f.stride[i] = detail::wrapping_add(a.stride[i], detail::wrapping_mul(sign, b.stride[i]));
    }
    // Every step is int32 (tile/expr.hpp): a node whose lanes leave it is the lane-by-lane
    // path's to report.
    long long lo, hi;
    if (!affine_range<S>(f, lo, hi) || lo < std::numeric_limits<int>::min() ||
        hi > std::numeric_limits<int>::max())
      throw sim::kernel_error(sim::diagnostic{});
    return f;
  }
};

// The smallest and largest lane of an affine form over shape S, when no lane can have wrapped
// (every term far from 2^63); false otherwise.
template <class S>
inline bool affine_range(const affine_form<S::rank>& f, long long& lo, long long& hi) {
  constexpr long long limit = 1LL << 40;
  if (f.base < -limit || f.base > limit) return false;
  lo = hi = f.base;
  for (int a = 0; a < S::rank; ++a) {
    const long long s = f.stride[a], span = S::dim(a) - 1;
    if (s < -limit || s > limit) return false;
    if (s < 0) lo += s * span;
    else hi += s * span;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Whole tiles

// Every lane of `v` (a values_of) broadcast to S: f(out_index, value).
template <class S, class V, class F>
inline void for_each_broadcast(const V& v, F&& f) {
  broadcast_loop<S, typename V::shape>::run([&](long long o, long long i) { f(o, lane_at(v, i)); });
}

// The poison bits of `v` broadcast to S into out[S::size].
template <class S, class V>
inline void broadcast_poison(const V& v, bool* out) {
  if constexpr (V::has_poison) {
    if (v.any_poison()) {
      const bool* p = v.poison();
      broadcast_loop<S, typename V::shape>::run([&](long long o, long long i) { out[o] = p[i]; });
      return;
    }
  }
  std::memset(out, 0, S::size * sizeof(bool));
}

}  // namespace batch
}  // namespace TL_ABI
}  // namespace tl
