// The CPU backend of `tl`, the hooks of tile/ops.hpp: data tiles hold every element with a
// poison bit, and every load and store is checked lane by lane against the buffer its pointer
// came from. The public operations themselves (their signatures, static_asserts and source-line
// defaults) are declared once, in tile/ops.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <source_location>
#include <type_traits>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/origin.hpp"
#include "simulator/poison_walk.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

namespace backend {

// A pointer into one checked buffer. Pointer arithmetic keeps the buffer's identity, so every
// access is checked against this buffer and not whichever one happens to lie nearby.
struct checked_address {
  sim::buffer* buf = nullptr;
  long long offset = 0;
};
template <class T>
struct address_of {
  using type = checked_address;
  static void advance(checked_address& a, long long elements) { a.offset += elements; }
};

}  // namespace backend

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

}  // namespace detail

namespace layouts {
// The simulator has one layout: every tile holds all its elements, row-major.
struct flat {};
}  // namespace layouts

namespace backend {

template <class S>
struct declared_layout {
  using type = layouts::flat;
};
template <class T, class S>
using data_tile = basic_tile<T, S, layouts::flat>;

inline constexpr bool tracks_poison = true;

template <class T>
constexpr T no_other_value() {
  return detail::poison_value<T>();
}

// Every value of a tile, with a poison bit per element, and where its poison was made.
template <class T, class S, class Layout>
struct storage {
  std::array<T, S::size> values;
  std::array<bool, S::size> poison;
  sim::poison_origin origin;

  T& value(long long i) { return values[i]; }
  T value(long long i) const { return values[i]; }
  bool& poisoned(long long i) { return poison[i]; }
  bool poisoned(long long i) const { return poison[i]; }
};

template <class T, class S, class L>
void leave_unset(basic_tile<T, S, L>& t, const std::source_location& declared = {}) {
  t.storage.values.fill(detail::poison_value<T>());
  t.storage.poison.fill(true);
  t.storage.origin = {"a tl::tile declared without a value", declared};
}

template <class T, class S, class L>
void fill(basic_tile<T, S, L>& t, T v) {
  t.storage.values.fill(v);
  t.storage.poison.fill(false);
  t.storage.origin = {};
}

template <class T, class S, class L, class E>
void assign(basic_tile<T, S, L>& t, const E& e) {
  sim::current_context().count();  // elementwise work counts against the op budget too
  using ES = shape_of_t<E>;
  sim::poison_origin origin;
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    const auto q = broadcast_pos<ES, S>(p);
    const auto v = e.eval(q);
    if constexpr (is_integer_lane_v<T> && is_integer_lane_v<decltype(v)>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
        sim::raise_at(sim::kind::index_overflow,
                      "an integer tile lane holds " + std::to_string(v) +
                          ", outside int32 (Triton and the GPU compute integer tiles in 32 "
                          "bits, where it would wrap around). Compute the value in smaller "
                          "pieces.",
                      sim::current_context().last_op);
      t.storage.values[i] = static_cast<T>(v);
    } else {
      t.storage.values[i] = op::cast_to<T>{}(v);
    }
    t.storage.poison[i] = e.poison(q);
    if (t.storage.poison[i] && !origin.what) origin = walk::poison_origin_of(e, q);
  });
  t.storage.origin = origin;
}

template <class T, class S, class L, int R>
lane_t<T> lane_value(const basic_tile<T, S, L>& t, const pos<R>& p) {
  return static_cast<lane_t<T>>(t.storage.values[flat_index<S>(p)]);
}
template <class T, class S, class L, int R>
bool lane_poison(const basic_tile<T, S, L>& t, const pos<R>& p) {
  return t.storage.poison[flat_index<S>(p)];
}

// Branching on poison is an error.
template <class T, class S, class L>
T scalar_value(const basic_tile<T, S, L>& t) {
  if (t.storage.poison[0])
    sim::raise_poison_use(t.storage.origin, sim::current_context().last_op);
  return t.storage.values[0];
}

// Evaluates an expression into a data tile of its own shape and type.
template <class E>
auto materialize(const E& e) {
  data_tile<value_of_t<E>, shape_of_t<E>> out(detail::uninitialized_t{});
  assign(out, e);
  return out;
}

// The program's coordinates in the launch grid, as in triton.language.
inline int program_id(int axis, const std::source_location& loc) {
  auto& ctx = sim::current_context();
  if (axis < 0 || axis > 2)
    sim::raise_at(sim::kind::crash, "tl::program_id: the axis must be 0, 1 or 2", loc);
  return ctx.program[axis];
}
inline int num_programs(int axis, const std::source_location& loc) {
  auto& ctx = sim::current_context();
  if (axis < 0 || axis > 2)
    sim::raise_at(sim::kind::crash, "tl::num_programs: the axis must be 0, 1 or 2", loc);
  return ctx.grid[axis];
}

}  // namespace backend

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
      check.note_origin(walk::poison_origin_of(mask, pm));
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
      check.note_origin(walk::poison_origin_of(pe.offsets, pp));
      return -1;
    }
  }
  const long long rel = pe.offsets.eval(pp);
  if (rel < std::numeric_limits<int>::min() || rel > std::numeric_limits<int>::max()) {
    check.add(check.overflow, i, p.c, rel);
    return -1;
  }
  const long long off = pe.base.address.offset + rel;
  if (off < 0 || off >= buf.count()) {
    check.add(check.outside, i, p.c, off);
    return -1;
  }
  return off;
}

}  // namespace detail

namespace backend {

// Loads one element per active lane. Masked-off lanes read nothing and give `other`, or poison
// when there is no `other`.
template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
auto load(const PE& pe, const MaskE& m, const OtherE& o, const std::source_location& loc) {
  using OS = shape_of_t<OtherE>;
  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.address.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::load through a null pointer", loc);
  const Elem* data = static_cast<const Elem*>(buf->data());
  const int me = ctx.linear_program;

  data_tile<Elem, S> out(detail::uninitialized_t{});
  auto& values = out.storage;
  values.origin = {};
  const bool trace_other = std::is_floating_point_v<Elem> && has_other && sim::tracing_nonfinite();
  sim::access_check check("loads from", *buf, loc, S::rank);
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    values.value(i) = detail::poison_value<Elem>();
    values.poisoned(i) = true;
    const auto lane = detail::mask_lane<S>(m, p, i, check);
    if (lane == detail::lane_mask::poison) return;
    if (lane == detail::lane_mask::off) {
      ++buf->counters.masked_loads;
      const auto po = broadcast_pos<OS, S>(p);
      values.value(i) = static_cast<Elem>(o.eval(po));
      values.poisoned(i) = !has_other || o.poison(po);
      if (values.poisoned(i) && !values.origin.what)
        values.origin = has_other ? walk::poison_origin_of(o, po)
                                  : sim::poison_origin{"the masked load without `other`", loc};
      if (trace_other && !std::isfinite(static_cast<double>(values.value(i))))
        sim::note_nonfinite_other(static_cast<double>(values.value(i)), loc);
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
    values.value(i) = data[off];
    values.poisoned(i) = false;
  });
  check.raise_if_any();
  return out;
}

// Stores one element per active lane; masked-off lanes write nothing.
template <class Elem, class S, class PE, class V, class MaskE>
void store(const PE& pe, const V& v, const MaskE& m, const std::source_location& loc) {
  using VS = shape_of_t<V>;
  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.address.buf;
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
      check.note_origin(walk::poison_origin_of(v, pv));
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
    data[off] = op::cast_to<Elem>{}(v.eval(pv));
  });
  check.raise_if_any();
}

// ---------------------------------------------------------------------------------------------
// Reductions: lanes folded in index order with the operation's own arithmetic (tile/lanes.hpp).

}  // namespace backend

namespace detail {
// One step of a sum: an integer sum that leaves int32 is reported there (the GPU wraps it); a
// float sum that turns numbers into NaN (inf + -inf) or finite numbers into an infinity is noted
// for the nan-inf report while the launch traces.
template <class Op, class A, class B, class R>
inline void check_fold_step(A before, B v, R acc, const std::source_location& loc) {
  if constexpr (std::is_floating_point_v<R> && std::is_same_v<Op, op::add>) {
    if (!std::isfinite(acc)) [[unlikely]]
      sim::note_nonfinite("tl::sum", true, static_cast<double>(before), static_cast<double>(v),
                          static_cast<double>(acc), loc);
  } else if constexpr (is_integer_lane_v<R> && std::is_same_v<Op, op::add>) {
    if (acc < std::numeric_limits<int>::min() || acc > std::numeric_limits<int>::max()) [[unlikely]]
      sim::raise_at(sim::kind::index_overflow,
                    "the int32 sum at this line leaves int32: " + std::to_string(before) + " + " +
                        std::to_string(v) + " = " + std::to_string(acc) +
                        ", which the GPU and Triton wrap around to " +
                        std::to_string(static_cast<int>(static_cast<unsigned>(acc))) +
                        ". Sum fewer lanes at a time, or in float.",
                    loc);
  }
}

// The step of a dot product that first made a NaN or an infinity, for the nan-inf report: a
// product (0 * inf) or the running sum (inf - inf, overflow).
inline void note_dot_nonfinite(const float* a, const float* b, int stride_b, int K, float start,
                               const std::source_location& loc) {
  float s = start;
  for (int k = 0; k < K; ++k) {
    const float x = a[k], y = b[k * stride_b], p = x * y;
    if (!std::isfinite(p)) sim::note_nonfinite("*", true, x, y, p, loc);
    if (!std::isfinite(s + p)) sim::note_nonfinite("+", true, s, p, s + p, loc);
    s += p;
  }
}
}  // namespace detail

namespace backend {

template <class Op, int Axis, bool Keep, class E>
auto reduce(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  using T = reduced_value_t<Op, value_of_t<E>>;
  using R = reduced_shape_t<S, Axis, Keep>;
  sim::current_context().tick(loc);
  data_tile<T, R> out(detail::uninitialized_t{});
  detail::for_each_pos<R>([&](const pos<R::rank>& q, long long i) {
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
    if (poisoned && !out.storage.origin.what) out.storage.origin = walk::poison_origin_of(x, p);
    for (int k = 1; k < S::dim(Axis); ++k) {
      p.c[Axis] = k;
      const auto v = x.eval(p);
      const auto before = acc;
      acc = static_cast<lane_t<T>>(Op{}(acc, v));
      detail::check_fold_step<Op>(before, v, acc, loc);
      if (x.poison(p) && !poisoned) {
        poisoned = true;
        if (!out.storage.origin.what) out.storage.origin = walk::poison_origin_of(x, p);
      }
    }
    out.storage.value(i) = static_cast<T>(acc);
    out.storage.poisoned(i) = poisoned;
  });
  return out;
}

template <class Op, class E>
auto reduce_all(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  using T = reduced_value_t<Op, value_of_t<E>>;
  sim::current_context().tick(loc);
  lane_t<T> acc{};
  bool poisoned = false;
  sim::poison_origin origin;
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    const auto v = x.eval(p);
    const auto before = acc;
    acc = i == 0 ? v : static_cast<lane_t<T>>(Op{}(acc, v));
    if (i != 0) detail::check_fold_step<Op>(before, v, acc, loc);
    if (x.poison(p) && !poisoned) {
      poisoned = true;
      origin = walk::poison_origin_of(x, p);
    }
  });
  data_tile<T, shape<>> out(detail::uninitialized_t{});
  out.storage.value(0) = static_cast<T>(acc);
  out.storage.poisoned(0) = poisoned;
  out.storage.origin = origin;
  return out;
}


// ---------------------------------------------------------------------------------------------
// Matrix product with fp32 accumulation: a [M, K] @ b [K, N] (+ acc [M, N]).

// Each output lane starts from acc and adds the K products in order of k, in float.
template <int M, int N, int K, class A, class B, class C>
auto dot(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  sim::current_context().tick(loc);
  // Poison flows per row of a and column of b.
  std::array<bool, M> row_poison{};
  std::array<bool, N> col_poison{};
  data_tile<float, shape<M, K>> fa(a);
  data_tile<float, shape<K, N>> fb(b);
  const auto& va = fa.storage;
  const auto& vb = fb.storage;
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) row_poison[i] = row_poison[i] || va.poisoned(i * K + k);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) col_poison[j] = col_poison[j] || vb.poisoned(k * N + j);
  data_tile<float, shape<M, N>> out(acc);
  auto& vo = out.storage;
  if (!vo.origin.what) vo.origin = va.origin.what ? va.origin : vb.origin;
  const bool trace = sim::tracing_nonfinite();
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float s = vo.value(i * N + j);
      for (int k = 0; k < K; ++k) s += va.value(i * K + k) * vb.value(k * N + j);
      if (trace && !std::isfinite(s)) [[unlikely]]
        detail::note_dot_nonfinite(va.values.data() + i * K, vb.values.data() + j, N, K,
                                   vo.value(i * N + j), loc);
      vo.value(i * N + j) = s;
      vo.poisoned(i * N + j) = vo.poisoned(i * N + j) || row_poison[i] || col_poison[j];
    }
  }
  return out;
}

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
