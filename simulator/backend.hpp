// The CPU backend of `tl`: data tiles hold every element with a poison bit, and every load and
// store is checked lane by lane against the buffer its pointer came from.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <source_location>
#include <type_traits>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

// A pointer into one checked buffer. Pointer arithmetic keeps the buffer's identity, so every
// access is checked against this buffer and not whichever one happens to lie nearby.
template <class T>
struct ptr {
  using element_type = T;
  sim::buffer* buf = nullptr;
  long long offset = 0;

  void advance(long long elements) { offset += elements; }
};

template <class T>
struct is_ptr<ptr<T>> : std::true_type {};

namespace detail {
template <class T>
constexpr T poison_value() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else return T{};
}

// Calls f(pos, flat) for every element of S in row-major order.
template <class S, class F>
inline void for_each_pos(F&& f) {
  pos<S::rank> p{};
  p.slot = -1;
  for (long long i = 0; i < S::size; ++i) {
    f(static_cast<const pos<S::rank>&>(p), i);
    for (int a = S::rank - 1; a >= 0; --a) {
      if (++p.c[a] < S::dim(a)) break;
      p.c[a] = 0;
    }
  }
}

struct uninitialized_t {};
}  // namespace detail

// A tile of values: what load, reductions, dot and every operation on data produce.
template <class T, int... Dims>
class tile : public expr_base<tile<T, Dims...>> {
 public:
  using value_type = T;
  using shape_type = shape<Dims...>;
  static constexpr bool has_data = true;
  static constexpr bool may_poison = true;
  static constexpr long long size = shape_type::size;

  // A tile nobody assigned is poison, like a register nothing wrote.
  tile() {
    values_.fill(detail::poison_value<T>());
    poison_.fill(true);
  }
  explicit tile(detail::uninitialized_t) {}

  // From any expression that broadcasts to this shape: tl::tile<float, B0> m = tl::full<B0>(-INF);
  template <class E>
    requires is_expr_v<E>
  tile(const E& e) {
    static_assert(broadcasts_to<shape_of_t<E>, shape_type>,
                  "tl::tile: the expression's shape does not broadcast to this tile's shape");
    assign(e);
  }
  // From a scalar: tl::tile<float, B0> acc = 0.0f;
  template <class S>
    requires is_scalar_v<S>
  tile(S s) {
    values_.fill(static_cast<T>(s));
    poison_.fill(false);
  }

  template <class E>
    requires(is_expr_v<E> && !std::is_same_v<std::remove_cvref_t<E>, tile>) || is_scalar_v<E>
  tile& operator=(const E& e) {
    tile fresh(e);
    *this = fresh;
    return *this;
  }

  lane_t<T> eval(const pos<shape_type::rank>& p) const {
    return static_cast<lane_t<T>>(values_[flat_index<shape_type>(p)]);
  }
  bool poison(const pos<shape_type::rank>& p) const { return poison_[flat_index<shape_type>(p)]; }

  // A rank-0 tile (a full reduction) converts to its value; branching on poison is an error.
  operator T() const
    requires(shape_type::rank == 0)
  {
    if (poison_[0])
      sim::raise_at(sim::kind::uninitialized_read,
                    "a scalar used by the kernel is poison: it comes from lanes a masked load "
                    "switched off with no `other`. Give the load an `other` value.",
                    sim::current_context().last_op);
    return values_[0];
  }

  // Direct element access for the backend and for tests.
  T& value(long long i) { return values_[i]; }
  T value(long long i) const { return values_[i]; }
  bool& poisoned(long long i) { return poison_[i]; }
  bool poisoned(long long i) const { return poison_[i]; }

  template <class E>
  void assign(const E& e);

 private:
  std::array<T, size> values_;
  std::array<bool, size> poison_;
};

template <class T, int... Dims>
template <class E>
void tile<T, Dims...>::assign(const E& e) {
  using ES = shape_of_t<E>;
  detail::for_each_pos<shape_type>([&](const pos<shape_type::rank>& p, long long i) {
    const auto q = broadcast_pos<ES, shape_type>(p);
    const auto v = e.eval(q);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
        sim::raise_at(sim::kind::index_overflow,
                      "an integer tile lane holds " + std::to_string(v) +
                          ", outside int32 (Triton and the GPU compute integer tiles in 32 "
                          "bits). Compute the value in smaller pieces.",
                      sim::current_context().last_op);
    }
    values_[i] = static_cast<T>(v);
    poison_[i] = e.poison(q);
  });
}

// Evaluates an expression into a data tile of its own shape and type.
template <class E>
auto materialize(const E& e) {
  using T = value_of_t<E>;
  tile_for<T, shape_of_t<E>> out(detail::uninitialized_t{});
  out.assign(e);
  return out;
}

// The program's coordinates in the launch grid, as in triton.language.
inline int program_id(int axis, std::source_location loc = std::source_location::current()) {
  auto& ctx = sim::current_context();
  if (axis < 0 || axis > 2)
    sim::raise_at(sim::kind::crash, "tl::program_id: the axis must be 0, 1 or 2", loc);
  return ctx.program[axis];
}
inline int num_programs(int axis, std::source_location loc = std::source_location::current()) {
  auto& ctx = sim::current_context();
  if (axis < 0 || axis > 2)
    sim::raise_at(sim::kind::crash, "tl::num_programs: the axis must be 0, 1 or 2", loc);
  return ctx.grid[axis];
}

namespace detail {

enum class lane_mask { off, on, poison };

// Whether the mask switches lane p on. A poison mask lane is recorded as a problem.
template <class S, class MaskE>
lane_mask mask_lane(const MaskE& mask, const pos<S::rank>& p, long long i,
                    sim::access_check& check) {
  static_assert(std::is_same_v<value_of_t<MaskE>, bool>,
                "tl::load/tl::store: the mask must be a bool tile, such as offsets < N");
  const auto pm = broadcast_pos<shape_of_t<MaskE>, S>(p);
  if constexpr (has_data_v<MaskE>) {
    if (mask.poison(pm)) {
      check.add(check.poison_mask, i, p.c, 0);
      return lane_mask::poison;
    }
  }
  return mask.eval(pm) ? lane_mask::on : lane_mask::off;
}

// The buffer offset that active lane p addresses, after the checks every access shares: poison
// offsets, offsets past int32, bounds. -1 when the lane has a problem, recorded in `check`.
template <class S, class PE>
long long lane_offset(const PE& pe, const pos<S::rank>& p, long long i, const sim::buffer& buf,
                      sim::access_check& check) {
  const auto pp = broadcast_pos<typename PE::shape_type, S>(p);
  if constexpr (has_data_v<typename PE::offsets_type>) {
    if (pe.offsets.poison(pp)) {
      check.add(check.poison_offset, i, p.c, 0);
      return -1;
    }
  }
  const long long rel = pe.offsets.eval(pp);
  if (rel < std::numeric_limits<int>::min() || rel > std::numeric_limits<int>::max()) {
    check.add(check.overflow, i, p.c, rel);
    return -1;
  }
  const long long off = pe.base.offset + rel;
  if (off < 0 || off >= buf.count()) {
    check.add(check.outside, i, p.c, off);
    return -1;
  }
  return off;
}

}  // namespace detail

// Loads one element per active lane. Masked-off lanes read nothing and give `other`, or poison
// when there is no `other`.
template <class P, class M = detail::no_mask, class O = detail::no_other>
auto load(const P& pointers, const M& mask = {}, const O& other = {},
          std::source_location loc = std::source_location::current()) {
  static_assert(is_ptr_v<P> || is_ptr_expr_v<P>,
                "tl::load: the first argument must be a pointer or a pointer tile (ptr + offsets)");
  constexpr bool has_other = !std::is_same_v<O, detail::no_other>;
  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  using Elem = std::remove_const_t<typename PE::element_type>;
  using OffShape = typename PE::shape_type;
  const auto m = detail::mask_operand(mask);
  const auto o = detail::other_operand<Elem>(other, detail::poison_value<Elem>());
  using MS = shape_of_t<decltype(m)>;
  using OS = shape_of_t<decltype(o)>;
  using S = broadcast_t<OffShape, MS, OS>;

  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::load through a null pointer", loc);
  const Elem* data = static_cast<const Elem*>(buf->data());
  const int me = ctx.linear_program;

  tile_for<Elem, S> out(detail::uninitialized_t{});
  sim::access_check check("loads from", *buf, loc, S::rank);
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    out.value(i) = detail::poison_value<Elem>();
    out.poisoned(i) = true;
    const auto lane = detail::mask_lane<S>(m, p, i, check);
    if (lane == detail::lane_mask::poison) return;
    if (lane == detail::lane_mask::off) {
      ++buf->counters.masked_loads;
      const auto po = broadcast_pos<OS, S>(p);
      out.value(i) = static_cast<Elem>(o.eval(po));
      out.poisoned(i) = !has_other || o.poison(po);
      return;
    }
    const long long off = detail::lane_offset<S>(pe, p, i, *buf, check);
    if (off < 0) return;
    auto& shadow = buf->shadow[off];
    const int w = shadow.writer;
    if (w == sim::never_written) {
      check.add(check.unwritten, i, p.c, off);
      return;
    }
    if (w >= 0 && w != me) check.add(check.race_rw, i, p.c, off, "written by program " +
                                     sim::program_string(w) + " in this launch");
    ++buf->counters.loads;
    ++buf->program_loads;
    if (shadow.reader != me) {
      if (shadow.reader >= 0) {
        // Another program read it first: remember it for the race check in store, and keep
        // its per-element read count before starting this program's.
        shadow.earlier_reader = shadow.reader;
        buf->counters.max_program_element_reads =
            std::max<int>(buf->counters.max_program_element_reads, shadow.program_reads);
      }
      shadow.reader = me;
      shadow.program_reads = 0;
    }
    if (shadow.program_reads != 0xffff) ++shadow.program_reads;
    if (shadow.reads != 0xffff) ++shadow.reads;
    out.value(i) = data[off];
    out.poisoned(i) = false;
  });
  check.raise_if_any();
  return out;
}

// Stores one element per active lane; masked-off lanes write nothing.
template <class P, class V, class M = detail::no_mask>
void store(const P& pointers, const V& values, const M& mask = {},
           std::source_location loc = std::source_location::current()) {
  static_assert(is_ptr_v<P> || is_ptr_expr_v<P>,
                "tl::store: the first argument must be a pointer or a pointer tile (ptr + offsets)");
  static_assert(is_expr_v<V> || is_scalar_v<V>, "tl::store: the values must be a tile or a number");

  const auto pe = as_ptr_expr(pointers);
  using PE = std::remove_cvref_t<decltype(pe)>;
  static_assert(!std::is_const_v<typename PE::element_type>,
                "tl::store: this pointer points to const data (tl::ptr<const T>), which is "
                "read-only. Store through the output's tl::ptr<T>.");
  using Elem = typename PE::element_type;
  using OffShape = typename PE::shape_type;
  const auto m = detail::mask_operand(mask);
  const auto& v = as_operand<V, tile<Elem>>(values);
  using MS = shape_of_t<decltype(m)>;
  using VS = shape_of_t<decltype(v)>;
  using S = broadcast_t<OffShape, MS>;
  static_assert(broadcasts_to<VS, S>,
                "tl::store: the values' shape must broadcast to the pointers' shape");

  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::store through a null pointer", loc);
  Elem* data = static_cast<Elem*>(buf->data());
  const int me = ctx.linear_program;

  sim::access_check check("stores to", *buf, loc, S::rank);
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    const auto lane = detail::mask_lane<S>(m, p, i, check);
    if (lane == detail::lane_mask::poison) return;
    if (lane == detail::lane_mask::off) {
      ++buf->counters.masked_stores;
      return;
    }
    const long long off = detail::lane_offset<S>(pe, p, i, *buf, check);
    if (off < 0) return;
    const auto pv = broadcast_pos<VS, S>(p);
    if (v.poison(pv)) {
      check.add(check.poison_value, i, p.c, off);
      return;
    }
    auto& shadow = buf->shadow[off];
    const int w = shadow.writer;
    if (w >= 0 && w != me) {
      check.add(check.race_ww, i, p.c, off, "already written by program " + sim::program_string(w));
      return;
    }
    // The last reader, or when that is this program, another program that read it before.
    const int r = shadow.reader == me ? shadow.earlier_reader : shadow.reader;
    if (r >= 0 && r != me) {
      check.add(check.race_rw, i, p.c, off, "read by program " + sim::program_string(r) +
                                                " earlier in this launch");
      return;
    }
    ++buf->counters.stores;
    ++buf->program_stores;
    shadow.writer = me;
    if (shadow.writes != 0xffff) ++shadow.writes;
    data[off] = static_cast<Elem>(v.eval(pv));
  });
  check.raise_if_any();
}

// ---------------------------------------------------------------------------------------------
// Reductions

namespace detail {

template <class S, int Axis, bool Keep, std::size_t... I>
auto reduced_shape(std::index_sequence<I...>) {
  if constexpr (Keep)
    return shape<(static_cast<int>(I) == Axis ? 1 : S::dims[I])...>{};
  else
    return shape<S::dims[I < static_cast<std::size_t>(Axis) ? I : I + 1]...>{};
}
template <class S, int Axis, bool Keep>
using reduced_shape_t = decltype(reduced_shape<S, Axis, Keep>(
    std::make_index_sequence<Keep ? S::rank : S::rank - 1>{}));

// Summing a mask counts its true lanes, as in Triton; max and min of a mask stay masks.
template <class Op, class T>
using reduced_value_t =
    std::conditional_t<std::is_same_v<T, bool> && std::is_same_v<Op, op::add>, int, T>;

template <class Op, int Axis, bool Keep, class E>
auto reduce_axis(const E& x, const std::source_location& loc) {
  static_assert(is_expr_v<E>, "tl: reductions take a tile");
  using S = shape_of_t<E>;
  static_assert(Axis >= 0 && Axis < S::rank, "tl: the reduction axis is out of range for this tile");
  using T = reduced_value_t<Op, value_of_t<E>>;
  using R = reduced_shape_t<S, Axis, Keep>;
  sim::current_context().tick(loc);
  tile_for<T, R> out(uninitialized_t{});
  for_each_pos<R>([&](const pos<R::rank>& q, long long i) {
    pos<S::rank> p{};
    p.slot = -1;
    for (int a = 0, b = 0; a < S::rank; ++a) {
      if (a == Axis) {
        p.c[a] = 0;
        if (Keep) ++b;
      } else {
        p.c[a] = q.c[b++];
      }
    }
    lane_t<T> acc = x.eval(p);
    bool poisoned = x.poison(p);
    for (int k = 1; k < S::dim(Axis); ++k) {
      p.c[Axis] = k;
      acc = static_cast<lane_t<T>>(Op{}(acc, x.eval(p)));
      poisoned = poisoned || x.poison(p);
    }
    out.value(i) = static_cast<T>(acc);
    out.poisoned(i) = poisoned;
  });
  return out;
}

template <class Op, class E>
auto reduce_all(const E& x, const std::source_location& loc) {
  static_assert(is_expr_v<E>, "tl: reductions take a tile");
  using S = shape_of_t<E>;
  using T = reduced_value_t<Op, value_of_t<E>>;
  sim::current_context().tick(loc);
  lane_t<T> acc{};
  bool poisoned = false;
  for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    const auto v = x.eval(p);
    acc = i == 0 ? v : static_cast<lane_t<T>>(Op{}(acc, v));
    poisoned = poisoned || x.poison(p);
  });
  tile<T> out(uninitialized_t{});
  out.value(0) = static_cast<T>(acc);
  out.poisoned(0) = poisoned;
  return out;
}

}  // namespace detail

#define TL_REDUCTION(name, Op)                                                                   \
  template <int Axis, class E>                                                                   \
  auto name(const E& x, std::source_location loc = std::source_location::current()) {            \
    return detail::reduce_axis<Op, Axis, false>(x, loc);                                         \
  }                                                                                              \
  template <int Axis, class E>                                                                   \
  auto name(const E& x, keep_dims_t, std::source_location loc = std::source_location::current()) \
  {                                                                                              \
    return detail::reduce_axis<Op, Axis, true>(x, loc);                                          \
  }                                                                                              \
  template <class E>                                                                             \
    requires is_expr_v<E>                                                                        \
  auto name(const E& x, std::source_location loc = std::source_location::current()) {            \
    return detail::reduce_all<Op>(x, loc);                                                       \
  }
TL_REDUCTION(sum, op::add)
TL_REDUCTION(max, op::maximum)
TL_REDUCTION(min, op::minimum)
#undef TL_REDUCTION

// ---------------------------------------------------------------------------------------------
// Matrix product with fp32 accumulation: a [M, K] @ b [K, N] (+ acc [M, N]).

template <class A, class B, class C>
auto dot(const A& a, const B& b, const C& acc,
         std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<A> && is_expr_v<B> && is_expr_v<C>, "tl::dot takes tiles");
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  static_assert(SA::rank == 2 && SB::rank == 2, "tl::dot multiplies 2-D tiles: [M, K] @ [K, N]");
  constexpr int M = SA::dims[0], K = SA::dims[1], N = SB::dims[1];
  static_assert(SB::dims[0] == K, "tl::dot: a is [M, K] and b must be [K, N] with the same K");
  static_assert(M >= 16 && N >= 16 && K >= 16,
                "tl::dot: every dimension must be at least 16 (the tensor cores' smallest tile)");
  static_assert(broadcasts_to<shape_of_t<C>, shape<M, N>>, "tl::dot: acc must be [M, N]");
  sim::current_context().tick(loc);
  // Poison flows per row of a and column of b.
  std::array<bool, M> row_poison{};
  std::array<bool, N> col_poison{};
  tile<float, M, K> fa(a);
  tile<float, K, N> fb(b);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) row_poison[i] = row_poison[i] || fa.poisoned(i * K + k);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) col_poison[j] = col_poison[j] || fb.poisoned(k * N + j);
  tile<float, M, N> out(acc);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float s = out.value(i * N + j);
      for (int k = 0; k < K; ++k) s += fa.value(i * K + k) * fb.value(k * N + j);
      out.value(i * N + j) = s;
      out.poisoned(i * N + j) = out.poisoned(i * N + j) || row_poison[i] || col_poison[j];
    }
  }
  return out;
}

template <class A, class B>
auto dot(const A& a, const B& b, std::source_location loc = std::source_location::current()) {
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  static_assert(SA::rank == 2 && SB::rank == 2, "tl::dot multiplies 2-D tiles: [M, K] @ [K, N]");
  return dot(a, b, zeros<float, SA::dims[0], SB::dims[1]>(), loc);
}

}  // namespace TL_ABI
}  // namespace tl
