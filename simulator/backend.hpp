// The CPU backend of `tl`, the hooks of tile/ops.hpp: data tiles hold every element with a
// poison bit, and every lane of every load and store is checked against the buffer its pointer
// came from. The public operations themselves (their signatures, static_asserts and source-line
// defaults) are declared once, in tile/ops.hpp.
//
// Each operation has two paths that compute the same thing. In bulk: every lane of an expression
// evaluated at once (simulator/batch.hpp), a tile's offsets checked against the buffer as a whole,
// its shadow state checked and then updated in loops over contiguous runs of elements. Lane by
// lane: the reference, which also words every diagnostic. The bulk path has no side effects until
// it has found the whole operation clean; whenever something is wrong (a lane out of bounds,
// poison, a race, an evaluation that raised), it leaves everything as it was and the lane-by-lane
// path runs the operation instead and reports exactly what it always reported.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <source_location>
#include <type_traits>
#include <vector>

#include "simulator/batch.hpp"
#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/dot.hpp"
#include "simulator/origin.hpp"
#include "simulator/poison_walk.hpp"
#include "simulator/front_hooks.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"
#include "tile/precision.hpp"

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

}  // namespace TL_ABI
}  // namespace tl

#include "simulator/prefetch.hpp"
#include "simulator/trace_hook.hpp"

namespace tl {
inline namespace TL_ABI {

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

// The values or the poison bits of a large tile, on the heap, so that a tile assigned from a
// temporary (`acc = tl::dot(a, b, acc)`) takes over the temporary's arrays instead of copying
// them (20 KB for a 64 x 64 float tile, on every step of matmul's loop: 4 to 6% of matmul 512^3).
// Moving swaps the arrays, so the moved-from tile keeps defined values; everything else copies,
// as std::array does. The arrays of tiles that are gone wait in a per-thread free list for the
// next tile of the size: a matmul step makes and drops a few, and the list keeps them warm in the
// caches and out of malloc (through malloc the change was 5% slower instead).
template <class T, std::size_t N>
class heap_array {
 public:
  heap_array() : p_(allocate()) {}
  heap_array(const heap_array& other) : p_(allocate()) { std::memcpy(p_, other.p_, sizeof(T) * N); }
  heap_array(heap_array&& other) : heap_array(static_cast<const heap_array&>(other)) {}
  heap_array& operator=(const heap_array& other) {
    if (this != &other) std::memcpy(p_, other.p_, sizeof(T) * N);
    return *this;
  }
  heap_array& operator=(heap_array&& other) noexcept {
    std::swap(p_, other.p_);
    return *this;
  }
  ~heap_array() { free_arrays().list.push_back(p_); }

  T* data() { return p_; }
  const T* data() const { return p_; }
  static constexpr std::size_t size() { return N; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  void fill(const T& v) { std::fill_n(p_, N, v); }

 private:
  static T* fresh() { return static_cast<T*>(::operator new(sizeof(T) * N, std::align_val_t{64})); }
  static void release(T* p) { ::operator delete(p, std::align_val_t{64}); }
  struct free_list {
    std::vector<T*> list;
    ~free_list() {
      for (T* p : list) release(p);
    }
  };
  static free_list& free_arrays() {
    thread_local free_list arrays;
    return arrays;
  }
  static T* allocate() {
    static_assert(std::is_trivially_copyable_v<T>);
    auto& arrays = free_arrays().list;
    if (arrays.empty()) return fresh();
    T* p = arrays.back();
    arrays.pop_back();
    return p;
  }
  T* p_;
};

// Tiles of at least this many elements keep their arrays on the heap (heap_array).
inline constexpr long long heap_tile_elements = 4096;
template <class T, long long N>
using tile_array = std::conditional_t<(N >= heap_tile_elements), heap_array<T, N>, std::array<T, N>>;

// Every value of a tile, with a poison bit per element, and where its poison was made.
template <class T, class S, class Layout>
struct storage {
  tile_array<T, S::size> values;
  tile_array<bool, S::size> poison;
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

// Lane by lane: the reference for assign_in_bulk, and what reports a lane it cannot hold.
template <class T, class S, class L, class E>
void assign_lane_by_lane(basic_tile<T, S, L>& t, const E& e) {
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

// Every lane at once; false (with t in no particular state) when a lane needs the lane-by-lane
// path's report. `maybe_poison` is false when no lane of t can be poison (every bit is clear).
template <class V>
concept writes_into_tile = requires { requires V::writes_into; };

template <class T, class S, class L, class E>
bool assign_in_bulk(basic_tile<T, S, L>& t, const E& e, bool& maybe_poison) {
  using V = batch::values_t<E>;
  maybe_poison = true;
  try {
    if constexpr (std::is_same_v<E, basic_tile<T, S, L>>) {
      // A data tile of the same type (`acc = tl::dot(a, b, acc)`): its values and poison bits,
      // as they are, in two memcpys.
      if (&e != &t) t.storage = e.storage;
      return true;
    } else if constexpr (writes_into_tile<V> && std::is_same_v<typename V::shape, S> &&
                  std::is_same_v<typename V::lane, T>) {
      // The expression's lanes are the tile's values: computed where they belong.
      const V v(e, t.storage.values.data());
      batch::broadcast_poison<S>(v, t.storage.poison.data());
      maybe_poison = V::has_poison && v.any_poison();
      return true;
    } else {
      const V v(e);
      bool outside = false;
      T* values = t.storage.values.data();
      batch::for_each_broadcast<S>(v, [&](long long o, typename V::lane x) {
        if constexpr (is_integer_lane_v<T> && is_integer_lane_v<typename V::lane>) {
          outside |= (x < std::numeric_limits<T>::min()) | (x > std::numeric_limits<T>::max());
          values[o] = static_cast<T>(x);
        } else {
          values[o] = op::cast_to<T>{}(x);
        }
      });
      if (outside) return false;
      batch::broadcast_poison<S>(v, t.storage.poison.data());
      maybe_poison = V::has_poison && v.any_poison();
      return true;
    }
  } catch (const sim::kernel_error&) {
    return false;
  }
}

// Where the poison of a tile just assigned in bulk came from: its first poisoned lane's origin,
// the same as the lane-by-lane path finds.
template <class T, class S, class L, class E>
void note_poison_origin(basic_tile<T, S, L>& t, const E& e) {
  if constexpr (std::is_same_v<E, basic_tile<T, S, L>>) {
    if (&e != &t) t.storage.origin = e.storage.origin;
  } else {
    t.storage.origin = {};
    const bool* first = static_cast<const bool*>(
        std::memchr(t.storage.poison.data(), 1, sizeof(bool) * S::size));
    if (!first) return;
    pos<S::rank> p{};
    p.slot = -1;
    for (long long i = first - t.storage.poison.data(), a = S::rank - 1; a >= 0; --a) {
      p.c[a] = static_cast<int>(i % S::dim(a));
      i /= S::dim(a);
    }
    t.storage.origin = walk::poison_origin_of(e, broadcast_pos<shape_of_t<E>, S>(p));
  }
}

template <class T, class S, class L, class E>
void assign(basic_tile<T, S, L>& t, const E& e) {
  sim::current_context().count();  // elementwise work counts against the op budget too
  bool maybe_poison = true;
  if (sim::lane_by_lane() || !assign_in_bulk(t, e, maybe_poison)) assign_lane_by_lane(t, e);
  else if (maybe_poison) note_poison_origin(t, e);
  else t.storage.origin = {};  // what note_poison_origin finds when no bit is set, without a scan
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

// ---------------------------------------------------------------------------------------------
// Load and store in bulk

namespace detail {

// Where the active lanes of one load or store go. Either whole rows (every lane on, and the lanes
// of each row along the innermost axis address consecutive elements: `rows` runs of `row`
// elements from starts[r]), or a list of single lanes: the active ones, in lane order.
template <class S>
struct tile_access {
  static constexpr long long lanes = S::size;
  static constexpr long long row = S::rank > 0 ? S::dim(S::rank - 1) : 1;
  static constexpr long long rows = lanes / row;

  bool whole_rows = false;
  batch::lane_array<long long, rows> starts;
  // Lane by lane (whole_rows false): which lanes are on, each one's offset, and the offsets of
  // the active lanes in lane order.
  batch::lane_array<bool, lanes> on;
  batch::lane_array<long long, lanes> offset;
  batch::lane_array<long long, lanes> active_offset;
  long long active = 0;
};

template <class E>
struct is_mask_and : std::false_type {};
template <class A, class B>
struct is_mask_and<binary_expr<op::bit_and, A, B>>
    : std::bool_constant<std::is_same_v<value_of_t<binary_expr<op::bit_and, A, B>>, bool>> {};

template <class E>
struct is_expand : std::false_type {};
template <int Axis, class A>
struct is_expand<expand_expr<Axis, A>> : std::true_type {};

template <class E>
struct comparison : std::false_type {};
template <class A, class B>
struct comparison<binary_expr<op::less, A, B>> : std::true_type {};
template <class A, class B>
struct comparison<binary_expr<op::less_equal, A, B>> : std::true_type {};
template <class A, class B>
struct comparison<binary_expr<op::greater, A, B>> : std::true_type {};
template <class A, class B>
struct comparison<binary_expr<op::greater_equal, A, B>> : std::true_type {};

// Whether an affine comparison (cols < T) holds on every lane, from the extremes of its two
// sides: true only when it does and both sides are inside int32 on every lane (so that no lane
// would report an overflow).
template <class Op, class A, class B>
bool comparison_all_true(const binary_expr<Op, A, B>& m) {
  using S = shape_of_t<binary_expr<Op, A, B>>;
  const auto a = batch::affine_in<S>(m.a);
  const auto b = batch::affine_in<S>(m.b);
  batch::affine_form<S::rank> d;
  d.base = a.base - b.base;
  for (int i = 0; i < S::rank; ++i) d.stride[i] = a.stride[i] - b.stride[i];
  long long alo, ahi, blo, bhi, dlo, dhi;
  if (!batch::affine_range<S>(a, alo, ahi) || !batch::affine_range<S>(b, blo, bhi) ||
      !batch::affine_range<S>(d, dlo, dhi))
    return false;
  constexpr long long lowest = std::numeric_limits<int>::min(), highest = std::numeric_limits<int>::max();
  if (alo < lowest || ahi > highest || blo < lowest || bhi > highest) return false;
  if constexpr (std::is_same_v<Op, op::less>) return dhi < 0;
  else if constexpr (std::is_same_v<Op, op::less_equal>) return dhi <= 0;
  else if constexpr (std::is_same_v<Op, op::greater>) return dlo > 0;
  else return dlo >= 0;
}

// Whether every lane of a mask is on (and none is poison), looking at the pieces of `a & b`
// separately: a row mask and a column mask are checked without forming the tile they make, and
// an affine comparison from its extremes. False also when in doubt: the caller then evaluates.
template <class M>
bool mask_all_on(const M& m) {
  if constexpr (is_mask_and<M>::value) {
    return mask_all_on(m.a) && mask_all_on(m.b);
  } else if constexpr (is_expand<M>::value) {
    return mask_all_on(m.a);
  } else if constexpr (comparison<M>::value) {
    if constexpr (batch::affine_v<typename M::a_type> && batch::affine_v<typename M::b_type>) {
      return comparison_all_true(m);
    } else {
      const batch::values_t<M> v(m);
      using V = batch::values_t<M>;
      if (v.any_poison()) return false;
      bool all = true;
      for (long long i = 0; i < V::shape::size; ++i) all &= static_cast<bool>(batch::lane_at(v, i));
      return all;
    }
  } else {
    const batch::values_t<M> v(m);
    using V = batch::values_t<M>;
    if (v.any_poison()) return false;
    bool all = true;
    for (long long i = 0; i < V::shape::size; ++i) all &= static_cast<bool>(batch::lane_at(v, i));
    return all;
  }
}

// S with its innermost axis of size 1: one lane per row.
template <class S, std::size_t... I>
auto rows_shape(std::index_sequence<I...>)
    -> shape<(static_cast<int>(I) + 1 == S::rank ? 1 : S::dims[I])...>;
template <class S>
using rows_shape_t = decltype(rows_shape<S>(std::make_index_sequence<S::rank>{}));

// Offsets of the form a + b where a is constant along each row and b varies only along it
// (rows.col() * T + cols.row(), pid * B + tl::arange<B>()).
template <class S, class A>
constexpr bool constant_along_rows() {
  using VA = typename batch::values_t<A>::shape;
  return VA::rank == 0 || VA::dim(VA::rank - 1) == 1;
}
template <class S, class B>
constexpr bool varies_only_along_rows() {
  using VB = typename batch::values_t<B>::shape;
  for (int i = 0; i + 1 < VB::rank; ++i)
    if (VB::dim(i) != 1) return false;
  return true;
}

// Offsets a + b as above: each row's start when every row addresses consecutive elements inside
// the buffer and inside int32, computed per row and per column instead of per lane. False when
// that is not so (the caller then looks lane by lane).
template <class S, class A, class B>
bool outer_sum_starts(const A& a, const B& b, long long base, long long count,
                      long long* starts) {
  const batch::values_t<A> va(a);
  const batch::values_t<B> vb(b);
  using VA = batch::values_t<A>;
  using VB = batch::values_t<B>;
  constexpr long long row = tile_access<S>::row;
  constexpr long long small = 1LL << 40;  // far from wrapping around in 64 bits
  if (va.any_poison() || vb.any_poison()) return false;
  bool bad = false;
  for (long long i = 0; i < VB::shape::size; ++i) {
    const long long v = static_cast<long long>(batch::lane_at(vb, i));
    bad |= (v < -small) | (v > small);
  }
  const long long b0 = static_cast<long long>(batch::lane_at(vb, 0));
  if constexpr (VB::shape::size == row) {
    for (long long c = 0; c < row; ++c)
      bad |= static_cast<long long>(batch::lane_at(vb, c)) != b0 + c;
  } else {
    bad |= row != 1;
  }
  if (bad) return false;
  batch::broadcast_loop<rows_shape_t<S>, typename VA::shape>::run([&](long long r, long long i) {
    const long long v = static_cast<long long>(batch::lane_at(va, i));
    const long long first = v + b0, last = first + row - 1;
    bad |= (v < -small) | (v > small) |
           (first < std::numeric_limits<int>::min()) | (last > std::numeric_limits<int>::max()) |
           (base + first < 0) | (base + last >= count);
    starts[r] = base + first;
  });
  return !bad;
}

template <class E>
struct sum_parts : std::false_type {};
template <class A, class B>
struct sum_parts<binary_expr<op::add, A, B>> : std::true_type {
  using a = std::remove_cvref_t<A>;
  using b = std::remove_cvref_t<B>;
};

// Offsets affine in the lane (rows.col() * T + cols.row() + j): each row's start, when every row
// addresses consecutive elements inside the buffer and inside int32, from the form's extremes.
template <class S, class Off>
bool affine_starts(const Off& offsets, long long base, long long count, long long* starts) {
  if constexpr (S::rank == 0 || !batch::affine_v<Off>) {
    return false;
  } else {
    const auto f = batch::affine_in<S>(offsets);
    long long lo, hi;
    if (!batch::affine_range<S>(f, lo, hi)) return false;
    if (lo < std::numeric_limits<int>::min() || hi > std::numeric_limits<int>::max() ||
        base + lo < 0 || base + hi >= count)
      return false;
    constexpr int last = S::rank - 1;
    if (S::dim(last) > 1 && f.stride[last] != 1) return false;
    // Row r's start: the form at the row's coordinates, counted like an odometer.
    constexpr long long rows = S::size / S::dim(last);
    std::array<int, S::rank> c{};
    long long start = base + f.base;
    for (long long r = 0; r < rows; ++r) {
      starts[r] = start;
      for (int a = last - 1; a >= 0; --a) {
        start += f.stride[a];
        if (++c[a] < S::dim(a)) break;
        start -= f.stride[a] * S::dim(a);
        c[a] = 0;
      }
    }
    return true;
  }
}

template <class S, class Off>
bool separable_starts(const Off& offsets, long long base, long long count, long long* starts) {
  if constexpr (S::rank == 0 || !sum_parts<Off>::value) {
    return false;
  } else {
    using A = typename sum_parts<Off>::a;
    using B = typename sum_parts<Off>::b;
    if constexpr (constant_along_rows<S, A>() && varies_only_along_rows<S, B>())
      return outer_sum_starts<S>(offsets.a, offsets.b, base, count, starts);
    else if constexpr (constant_along_rows<S, B>() && varies_only_along_rows<S, A>())
      return outer_sum_starts<S>(offsets.b, offsets.a, base, count, starts);
    else
      return false;
  }
}

// Evaluates the mask and offsets of every lane. False when some lane needs the lane-by-lane
// path's report: a poison mask or offset, an offset outside int32 or outside the buffer.
template <class S, class PE, class MaskE>
bool gather(const PE& pe, const MaskE& m, const sim::buffer& buf, tile_access<S>& access) {
  const long long base = pe.base.address.offset, count = buf.count();
  if (mask_all_on(m) && (affine_starts<S>(pe.offsets, base, count, access.starts.data()) ||
                         separable_starts<S>(pe.offsets, base, count, access.starts.data()))) {
    access.whole_rows = true;
    access.active = access.lanes;
    return true;
  }
  const batch::values_t<MaskE> mask(m);
  using MV = batch::values_t<MaskE>;
  if (mask.any_poison()) return false;
  bool* on = access.on.data();
  batch::for_each_broadcast<S>(mask, [&](long long o, typename MV::lane v) {
    on[o] = static_cast<bool>(v);
  });
  const batch::values_t<typename PE::offsets_type> offsets(pe.offsets);
  using OV = batch::values_t<typename PE::offsets_type>;
  if (offsets.any_poison()) return false;
  long long* offset = access.offset.data();
  bool bad = false;
  batch::for_each_broadcast<S>(offsets, [&](long long o, typename OV::lane v) {
    const long long rel = static_cast<long long>(v);
    const long long off = static_cast<long long>(static_cast<unsigned long long>(base) +
                                                 static_cast<unsigned long long>(rel));
    offset[o] = off;
    bad |= on[o] & ((rel < std::numeric_limits<int>::min()) |
                    (rel > std::numeric_limits<int>::max()) | (off < 0) | (off >= count));
  });
  if (bad) return false;
  long long active = 0;
  for (long long i = 0; i < access.lanes; ++i) {
    access.active_offset[active] = offset[i];
    active += on[i];
  }
  access.active = active;
  if (active == access.lanes) {
    // Every lane on: whole rows, if each row addresses consecutive elements.
    bool runs = true;
    for (long long r = 0; r < access.rows; ++r) {
      const long long* row_offset = offset + r * access.row;
      for (long long c = 0; c < access.row; ++c) runs &= row_offset[c] == row_offset[0] + c;
      access.starts[r] = row_offset[0];
    }
    access.whole_rows = runs;
  }
  return true;
}

// A dry launch's load or store (launch_options::dry): the checks every access makes of its mask
// and offsets (an offset past int32, an active lane outside the buffer's shape, and every integer
// step of the index expressions on the active lanes), and nothing of the buffer's data or shadow
// state. The bulk gather first; lane by lane, to word the report, when it finds a problem.
template <class S, class PE, class MaskE>
void dry_access(const PE& pe, const MaskE& m, const sim::buffer& buf, const char* verb,
                const std::source_location& loc) {
  {
    tile_access<S> access;
    try {
      if (gather(pe, m, buf, access)) return;
    } catch (const sim::kernel_error&) {
    }
  }
  sim::access_check check(verb, buf, loc, S::rank);
  check.set_masked(!std::is_same_v<MaskE, full_expr<bool, shape<>>>);
  for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    if (mask_lane<S>(m, p, i, check) != lane_mask::on) return;
    lane_offset<S>(pe, p, i, buf, check);
  });
  check.raise_if_any();
}

// The bulk load; false, with nothing changed, when the lane-by-lane load must run instead.
// `maybe_poison` is false when no lane of `out` can be poison (every lane was on).
template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
bool load_in_bulk(const PE& pe, const MaskE& m, const OtherE& o, sim::buffer& buf, int me,
                  backend::data_tile<Elem, S>& out, bool& maybe_poison) {
  tile_access<S> access;
  try {
    if (!gather(pe, m, buf, access)) return false;
  } catch (const sim::kernel_error&) {
    return false;
  }
  sim::shadow_state& shadow = buf.shadow;
  const bool readable =
      access.whole_rows
          ? shadow.readable(access.starts.data(), access.rows, access.row, me)
          : shadow.readable(access.active_offset.data(), access.active, 1, me);
  if (!readable) return false;
  Elem* values = out.storage.values.data();
  bool* poison = out.storage.poison.data();
  if (access.active < access.lanes) {
    // The lanes the mask switched off hold `other`, or poison without one.
    try {
      const batch::values_t<OtherE> other(o);
      using OV = batch::values_t<OtherE>;
      const bool* on = access.on.data();
      batch::with_poison(other, [&](auto poison_of) {
        batch::broadcast_loop<S, typename OV::shape>::run([&](long long i, long long j) {
          if (on[i]) return;
          values[i] = static_cast<Elem>(batch::lane_at(other, j));
          poison[i] = !has_other || poison_of(j);
        });
      });
    } catch (const sim::kernel_error&) {
      return false;
    }
  }

  // Clean: from here on, the load happens.
  maybe_poison = access.active < access.lanes;
  buf.counters.loads += access.active;
  buf.program_loads += access.active;
  buf.counters.masked_loads += access.lanes - access.active;
  auto& c = buf.counters;
  const Elem* data = static_cast<const Elem*>(buf.data());
  if (access.whole_rows) {
    shadow.read(access.starts.data(), access.rows, access.row, me, c.max_element_reads,
                c.max_program_element_reads);
    // memcpy and memset rather than loops: fast also where the kernel is compiled without
    // vectorization (the puzzle modules are built at -O1).
    for (long long r = 0; r < access.rows; ++r)
      std::memcpy(values + r * access.row, data + access.starts[r], access.row * sizeof(Elem));
    std::memset(poison, 0, access.lanes * sizeof(bool));
  } else {
    shadow.read(access.active_offset.data(), access.active, 1, me, c.max_element_reads,
                c.max_program_element_reads);
    for (long long i = 0; i < access.lanes; ++i) {
      if (!access.on[i]) continue;
      values[i] = data[access.offset[i]];
      poison[i] = false;
    }
  }
  return true;
}

// The values a store writes, as the element type, for every lane: in place when they are a
// data tile of that type and shape already.
template <class Elem, class S, class V>
class store_values {
  using VV = batch::values_t<V>;

 public:
  static constexpr bool in_place = std::is_same_v<typename VV::shape, S> &&
                                   std::is_same_v<typename VV::stored, Elem> &&
                                   std::is_same_v<typename VV::lane, Elem>;

  // False when an active lane is poison.
  bool convert(const V& v, const bool* on) {
    v_.emplace(v);
    if (v_->any_poison()) {
      bool poisoned = false;
      const bool* p = v_->poison();
      batch::broadcast_loop<S, typename VV::shape>::run(
          [&](long long i, long long j) { poisoned |= (!on || on[i]) & p[j]; });
      if (poisoned) return false;
    }
    if constexpr (!in_place) {
      Elem* out = converted_.data();
      batch::for_each_broadcast<S>(*v_, [&](long long i, typename VV::lane x) {
        out[i] = (!on || on[i]) ? op::cast_to<Elem>{}(x) : Elem{};
      });
    }
    return true;
  }
  const Elem* data() const {
    if constexpr (in_place) return v_->values();
    else return converted_.data();
  }

 private:
  std::optional<VV> v_;
  batch::lane_array<Elem, in_place ? 1 : S::size> converted_;
};

// Whether the active lanes of a store address distinct elements: `rows` runs of n consecutive
// elements from starts[r] that do not overlap (a run of 1 is a single lane). Runs in increasing
// order, the usual case, cost one pass; others are sorted first.
inline bool runs_disjoint(const long long* starts, long long rows, long long n) {
  bool increasing = true;
  for (long long r = 1; r < rows; ++r) increasing &= starts[r] - starts[r - 1] >= n;
  if (increasing) return true;
  std::vector<long long> sorted(starts, starts + rows);
  std::sort(sorted.begin(), sorted.end());
  for (long long r = 1; r < rows; ++r)
    if (sorted[r] - sorted[r - 1] < n) return false;
  return true;
}

// The bulk store; false, with nothing changed, when the lane-by-lane store must run instead.
template <class Elem, class S, class PE, class V, class MaskE>
bool store_in_bulk(const PE& pe, const V& v, const MaskE& m, sim::buffer& buf, int me) {
  tile_access<S> access;
  store_values<Elem, S, V> values;
  try {
    if (!gather(pe, m, buf, access)) return false;
    // Two lanes on one element: the lane-by-lane store reports the race.
    if (access.whole_rows ? !runs_disjoint(access.starts.data(), access.rows, access.row)
                          : !runs_disjoint(access.active_offset.data(), access.active, 1))
      return false;
    if (!values.convert(v, access.whole_rows ? nullptr : access.on.data())) return false;
  } catch (const sim::kernel_error&) {
    return false;
  }
  sim::shadow_state& shadow = buf.shadow;
  const bool writable =
      access.whole_rows
          ? shadow.writable(access.starts.data(), access.rows, access.row, me)
          : shadow.writable(access.active_offset.data(), access.active, 1, me);
  if (!writable) return false;

  // Clean: from here on, the store happens.
  buf.counters.stores += access.active;
  buf.program_stores += access.active;
  buf.counters.masked_stores += access.lanes - access.active;
  Elem* data = static_cast<Elem*>(buf.data());
  const Elem* source = values.data();
  if (access.whole_rows) {
    shadow.write(access.starts.data(), access.rows, access.row, me,
                 buf.counters.max_element_writes);
    for (long long r = 0; r < access.rows; ++r)
      std::memcpy(data + access.starts[r], source + r * access.row, access.row * sizeof(Elem));
  } else {
    shadow.write(access.active_offset.data(), access.active, 1, me,
                 buf.counters.max_element_writes);
    for (long long i = 0; i < access.lanes; ++i)
      if (access.on[i]) data[access.offset[i]] = source[i];
  }
  return true;
}

// Defined below, with the reductions that also use it.
template <class E>
sim::poison_origin first_poison_origin(const E& x);

}  // namespace detail

namespace backend {

// The lane-by-lane load: the reference for load_in_bulk, and what words its diagnostics.
template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
void load_lane_by_lane(const PE& pe, const MaskE& m, const OtherE& o, sim::buffer* buf, int me,
                       const std::source_location& loc, data_tile<Elem, S>& out) {
  using OS = shape_of_t<OtherE>;
  const Elem* data = static_cast<const Elem*>(buf->data());
  auto& values = out.storage;
  values.origin = {};
  const bool trace_other = std::is_floating_point_v<Elem> && has_other && sim::tracing_nonfinite();
  constexpr bool may_probe_other = has_other && is_floating_v<Elem>;
  sim::access_check check("loads from", *buf, loc, S::rank);
  check.set_masked(!std::is_same_v<MaskE, full_expr<bool, shape<>>>);
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
      if constexpr (may_probe_other)
        if (!values.poisoned(i))
          values.value(i) = static_cast<Elem>(
              sim::probe_other(static_cast<double>(values.value(i)), loc));
      if (values.poisoned(i) && !values.origin.what)
        values.origin = has_other ? walk::poison_origin_of(o, po)
                                  : sim::poison_origin{"the masked load without `other`", loc};
      if (trace_other && !std::isfinite(static_cast<double>(values.value(i))))
        sim::note_nonfinite_other(static_cast<double>(values.value(i)), loc);
      return;
    }
    const long long off = detail::lane_offset<S>(pe, p, i, *buf, check);
    if (off < 0) return;
    const auto shadow = buf->shadow[off];
    const int w = shadow.writer;
    if (w == sim::never_written) {
      check.add(check.unwritten, i, p.c, off);
      return;
    }
    if (w >= 0 && w != me) check.add(check.race_rw, i, p.c, off, "written by program " +
                                     sim::program_string(w) + " in this launch");
    ++buf->counters.loads;
    ++buf->program_loads;
    buf->shadow.read(&off, 1, 1, me, buf->counters.max_element_reads,
                     buf->counters.max_program_element_reads);
    values.value(i) = data[off];
    values.poisoned(i) = false;
  });
  check.raise_if_any();
}

// The loads the GPU may copy ahead in a pipelined range: cuda::can_pipeline's test.
template <class PE, class MaskE>
inline constexpr bool gpu_may_prefetch =
    !has_data_v<typename PE::offsets_type> && !has_data_v<MaskE> &&
    index_stages<typename PE::offsets_type>() >= 2 &&
    (index_stages<MaskE>() == 0 || index_stages<MaskE>() == index_stages<typename PE::offsets_type>()) &&
    state_words<PE>() + state_words<MaskE>() <= sim::prefetch_sites::max_state_words;

// Loads one element per active lane. Masked-off lanes read nothing and give `other`, or poison
// when there is no `other`. When the launch records a trace, `record(trace, buffer, program)`
// records the access first (what tl::load records is trace_access's; a descriptor's differs).
template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE, class Record>
auto load_recorded(const PE& pe, const MaskE& m, const OtherE& o, const std::source_location& loc,
                   Record&& record) {
  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.address.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::load through a null pointer", loc);
  if (ctx.dry) {
    // Zeros, and no poison: a dry launch is about indices, not values.
    detail::dry_access<S>(pe, m, *buf, "loads from", loc);
    data_tile<Elem, S> zeros(detail::uninitialized_t{});
    zeros.storage.values.fill(Elem{});
    zeros.storage.poison.fill(false);
    zeros.storage.origin = {};
    return zeros;
  }
  if (ctx.trace) record(*ctx.trace, *buf, ctx.linear_program);
  const int me = ctx.linear_program;
  const long long loads_before = buf->counters.loads;
  data_tile<Elem, S> out(detail::uninitialized_t{});
  bool maybe_poison = true;
  // A probe of `other` (simulator/origin.hpp) sees masked-off lanes on the lane-by-lane path only.
  const bool probed = has_other && is_floating_v<Elem> && ctx.other;
  if (ctx.lane_by_lane || probed ||
      !detail::load_in_bulk<Elem, S, has_other>(pe, m, o, *buf, me, out, maybe_poison)) {
    load_lane_by_lane<Elem, S, has_other>(pe, m, o, buf, me, loc, out);
  } else {
    // Poison in a load comes only from lanes switched off: its own, or its `other`'s.
    out.storage.origin = {};
    if (maybe_poison && batch::any_set(out.storage.poison.data(), S::size)) {
      if constexpr (has_other)
        out.storage.origin = detail::first_poison_origin(o);
      else
        out.storage.origin = {"the masked load without `other`", loc};
    }
  }
  buf->count_line(loc, false, buf->counters.loads - loads_before);
  if constexpr (gpu_may_prefetch<PE, MaskE>) sim::replay_prefetch<Elem, S, PE, MaskE, OtherE>(pe, m, *buf, loc);
  return out;
}

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
auto load(const PE& pe, const MaskE& m, const OtherE& o, const std::source_location& loc) {
  return load_recorded<Elem, S, has_other>(
      pe, m, o, loc, [&](sim::access_trace& trace, const sim::buffer& buf, int program) {
        detail::trace_access<S>(trace, pe, m, buf, program, false);
      });
}

// The lane-by-lane store: the reference for store_in_bulk, and what words its diagnostics.
template <class Elem, class S, class PE, class V, class MaskE>
void store_lane_by_lane(const PE& pe, const V& v, const MaskE& m, sim::buffer* buf, int me,
                        const std::source_location& loc) {
  using VS = shape_of_t<V>;
  Elem* data = static_cast<Elem*>(buf->data());
  sim::access_check check("stores to", *buf, loc, S::rank);
  check.set_masked(!std::is_same_v<MaskE, full_expr<bool, shape<>>>);
  // The lane that first wrote each element in this store: a second lane on one is a race (on
  // the GPU, two threads writing one element at once).
  std::vector<std::pair<long long, long long>> mine;  // (offset, lane), in order of offset
  auto first_lane_on = [&](long long off) -> long long {
    auto it = std::lower_bound(mine.begin(), mine.end(), std::pair<long long, long long>{off, -1});
    if (it != mine.end() && it->first == off) return it->second;
    return -1;
  };
  auto remember = [&](long long off, long long lane) {
    if (!mine.empty() && mine.back().first < off) mine.emplace_back(off, lane);
    else mine.insert(std::lower_bound(mine.begin(), mine.end(), std::pair<long long, long long>{off, -1}),
                     {off, lane});
  };
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
    if (const long long other = first_lane_on(off); other >= 0) {
      std::array<int, (S::rank > 0 ? S::rank : 1)> c{};
      for (long long rest = other, a = S::rank - 1; a >= 0; --a) {
        c[a] = static_cast<int>(rest % S::dim(a));
        rest /= S::dim(a);
      }
      check.add(check.duplicate, i, p.c, off,
                "lane " + std::to_string(other) + " at " + sim::coords_string(c.data(), S::rank) +
                    " writes it too");
      return;
    }
    remember(off, i);
    const auto shadow = buf->shadow[off];
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
    buf->shadow.write(&off, 1, 1, me, buf->counters.max_element_writes);
    data[off] = op::cast_to<Elem>{}(v.eval(pv));
  });
  check.raise_if_any();
}

// Stores one element per active lane; masked-off lanes write nothing. `record` as for
// load_recorded.
template <class Elem, class S, class PE, class V, class MaskE, class Record>
void store_recorded(const PE& pe, const V& v, const MaskE& m, const std::source_location& loc,
                    Record&& record) {
  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.address.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::store through a null pointer", loc);
  if (ctx.dry) {
    detail::dry_access<S>(pe, m, *buf, "stores to", loc);
    return;
  }
  if (ctx.trace) record(*ctx.trace, *buf, ctx.linear_program);
  const int me = ctx.linear_program;
  const long long stores_before = buf->counters.stores;
  if (ctx.lane_by_lane || !detail::store_in_bulk<Elem, S>(pe, v, m, *buf, me))
    store_lane_by_lane<Elem, S>(pe, v, m, buf, me, loc);
  buf->count_line(loc, true, buf->counters.stores - stores_before);
}

template <class Elem, class S, class PE, class V, class MaskE>
void store(const PE& pe, const V& v, const MaskE& m, const std::source_location& loc) {
  store_recorded<Elem, S>(pe, v, m, loc,
                          [&](sim::access_trace& trace, const sim::buffer& buf, int program) {
                            detail::trace_access<S>(trace, pe, m, buf, program, true);
                          });
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

// The origin of the first poisoned lane of x, row-major: what the lane-by-lane path records.
template <class E>
sim::poison_origin first_poison_origin(const E& x) {
  using S = shape_of_t<E>;
  sim::poison_origin origin;
  bool found = false;
  for_each_pos<S>([&](const pos<S::rank>& p, long long) {
    if (!found && x.poison(p)) {
      found = true;
      origin = walk::poison_origin_of(x, p);
    }
  });
  return origin;
}

// The step of a dot product that first made a NaN or an infinity, for the nan-inf report: a
// product (0 * inf) or the running sum (inf - inf, overflow).
inline void note_dot_nonfinite(const float* a, const float* b, int stride_b, int K, float start,
                               const std::source_location& loc) {
  // Each step is one fused multiply-add: its product, exact in double, is never rounded to
  // float, so a step turns non-finite either in the product (an infinite or NaN operand: inf * 0)
  // or in the rounding of the sum.
  float s = start;
  for (int k = 0; k < K; ++k) {
    const float x = a[k], y = b[k * stride_b];
    const double p = static_cast<double>(x) * y;
    const float next = std::fma(x, y, s);
    if (!std::isfinite(p)) sim::note_nonfinite("*", true, x, y, p, loc);
    else if (!std::isfinite(next)) sim::note_nonfinite("+", true, s, p, next, loc);
    s = next;
  }
}
}  // namespace detail

namespace backend {

template <class Op, int Axis, bool Keep, class E, class T, class R>
void reduce_lane_by_lane(const E& x, data_tile<T, R>& out, const std::source_location& loc) {
  using S = shape_of_t<E>;
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
}

namespace bulk {

// Every lane of x over its whole shape S, in row-major order, as its lane type.
template <class E>
class full_lanes {
  using V = batch::values_t<E>;
  using S = shape_of_t<E>;

 public:
  using lane = typename V::lane;
  static constexpr bool in_place =
      std::is_same_v<typename V::shape, S> && std::is_same_v<typename V::stored, lane>;

  explicit full_lanes(const E& x) : v_(x) {
    if constexpr (!in_place) {
      batch::for_each_broadcast<S>(v_, [&](long long o, lane value) { values_[o] = value; });
      if (v_.any_poison()) batch::broadcast_poison<S>(v_, poison_.data());
    }
  }
  const lane* values() const {
    if constexpr (in_place) return v_.values();
    else return values_.data();
  }
  bool any_poison() const { return v_.any_poison(); }
  const bool* poison() const {
    if constexpr (in_place) return v_.poison();
    else return poison_.data();
  }

 private:
  V v_;
  batch::lane_array<lane, in_place ? 1 : S::size> values_;
  batch::lane_array<bool, in_place ? 1 : S::size> poison_;
};

// G rows of K lanes each folded with Op, in order of k, side by side: G independent chains keep
// G operations in flight instead of waiting on one.
template <class Op, long long G, class L, class T, class Lane>
inline void fold_rows(const Lane* v, long long K, T* out) {
  L acc[G];
  for (long long g = 0; g < G; ++g) acc[g] = v[g * K];
  for (long long k = 1; k < K; ++k)
    for (long long g = 0; g < G; ++g)
      acc[g] = static_cast<L>(batch::branch_free_t<Op>{}(acc[g], v[g * K + k]));
  for (long long g = 0; g < G; ++g) out[g] = static_cast<T>(acc[g]);
}

// A fold of G rows (4 or 8) of K floats each with Op (add, maximum or minimum), in order of k,
// the G accumulators in vectors of 4, after a transposed copy of the rows. Each vector lane does
// what the lane-by-lane fold does: a float addition, or batch::ieee_extreme's integer form (the
// bits of IEEE maximum and minimum). Written with vector types rather than left to the
// vectorizer, so that the puzzle modules (-O1) get it too.
template <class Op, long long K, long long G>
inline void fold_rows_in_vectors(const float* v, float* out) {
  static_assert(G == 4 || G == 8);
  typedef std::int32_t ints4 __attribute__((vector_size(16)));
  typedef float floats4 __attribute__((vector_size(16)));
  using B = batch::float_bits<float>;
  alignas(16) float column[K][G];
  for (long long g = 0; g < G; ++g)
    for (long long k = 0; k < K; ++k) column[k][g] = v[g * K + k];
  auto step = [](floats4 acc, floats4 next) -> floats4 {
    if constexpr (std::is_same_v<Op, op::add>) {
      return acc + next;
    } else {
      constexpr bool larger = std::is_same_v<Op, op::maximum>;
      ints4 a, b;
      std::memcpy(&a, &acc, sizeof a);
      std::memcpy(&b, &next, sizeof b);
      const ints4 ka = a ^ ((a >> 31) & B::magnitude);
      const ints4 kb = b ^ ((b >> 31) & B::magnitude);
      const ints4 take_b = larger ? (ka < kb) : (kb < ka);
      const ints4 nan = ((a & B::magnitude) > B::infinity) | ((b & B::magnitude) > B::infinity);
      const ints4 r = (b & take_b) | (a & ~take_b);
      const ints4 out4 = (nan & B::quiet_nan) | (r & ~nan);
      floats4 f;
      std::memcpy(&f, &out4, sizeof f);
      return f;
    }
  };
  constexpr long long vectors = G / 4;
  floats4 acc[vectors];
  std::memcpy(acc, &column[0][0], sizeof acc);
  for (long long k = 1; k < K; ++k) {
    floats4 next[vectors];
    std::memcpy(next, &column[k][0], sizeof next);
    for (long long i = 0; i < vectors; ++i) acc[i] = step(acc[i], next[i]);
  }
  std::memcpy(out, acc, sizeof acc);
}

// The IEEE maximum (Larger) or minimum of a row of K floats, 16 running extremes at once.
//
// Unlike a sum, this fold gives the same bits in any order: batch::ieee_extreme returns the
// quiet NaN as soon as either operand is NaN, else the operand with the larger (smaller) key in a
// total order of the bit patterns (-0 below +0), and equal keys are equal bits. So the result is
// the quiet NaN if any lane is NaN, else the row's extreme in that order, however the lanes are
// grouped: the lane-by-lane fold's bits, from chains that do not wait on each other.
template <bool Larger, long long K>
inline float extreme_of_row(const float* v) {
  static_assert(K >= 16);
  typedef std::int32_t ints4 __attribute__((vector_size(16)));
  using B = batch::float_bits<float>;
  auto step = [](ints4 a, ints4 b) {
    const ints4 ka = a ^ ((a >> 31) & B::magnitude);
    const ints4 kb = b ^ ((b >> 31) & B::magnitude);
    const ints4 take_b = Larger ? (ka < kb) : (kb < ka);
    const ints4 nan = ((a & B::magnitude) > B::infinity) | ((b & B::magnitude) > B::infinity);
    const ints4 r = (b & take_b) | (a & ~take_b);
    return (nan & B::quiet_nan) | (r & ~nan);
  };
  ints4 acc[4];
  std::memcpy(acc, v, sizeof acc);
  long long k = 16;
  for (; k + 16 <= K; k += 16) {
    ints4 next[4];
    std::memcpy(next, v + k, sizeof next);
    for (int a = 0; a < 4; ++a) acc[a] = step(acc[a], next[a]);
  }
  float lanes[16];
  std::memcpy(lanes, acc, sizeof lanes);
  float r = lanes[0];
  for (int i = 1; i < 16; ++i) r = batch::ieee_extreme<float, Larger>(r, lanes[i]);
  if constexpr (K % 16 != 0)
    for (; k < K; ++k) r = batch::ieee_extreme<float, Larger>(r, v[k]);
  return r;
}

}  // namespace bulk

template <class Op, int Axis, bool Keep, class E, class T, class R>
bool reduce_in_bulk(const E& x, data_tile<T, R>& out) {
  using S = shape_of_t<E>;
  using L = lane_t<T>;
  constexpr long long K = S::dim(Axis), inner = S::stride(Axis), outer = S::size / (K * inner);
  try {
    const bulk::full_lanes<E> lanes(x);
    const auto* v = lanes.values();
    T* values = out.storage.values.data();
    constexpr bool vector_op = std::is_same_v<Op, op::add> || std::is_same_v<Op, op::maximum> ||
                               std::is_same_v<Op, op::minimum>;
    constexpr bool extreme = std::is_same_v<Op, op::maximum> || std::is_same_v<Op, op::minimum>;
    if constexpr (inner == 1 && K >= 16 && extreme &&
                  std::is_same_v<std::remove_cvref_t<decltype(*v)>, float> &&
                  std::is_same_v<T, float>) {
      for (long long o = 0; o < outer; ++o)
        values[o] = bulk::extreme_of_row<std::is_same_v<Op, op::maximum>, K>(v + o * K);
    } else if constexpr (inner == 1 && outer >= 4 && K <= 1024 && vector_op &&
                  std::is_same_v<std::remove_cvref_t<decltype(*v)>, float> &&
                  std::is_same_v<T, float>) {
      constexpr long long G = outer >= 8 ? 8 : 4;
      constexpr long long whole = outer / G * G;
      for (long long o = 0; o < whole; o += G)
        bulk::fold_rows_in_vectors<Op, K, G>(v + o * K, values + o);
      if constexpr (whole < outer)
        for (long long o = whole; o < outer; ++o) bulk::fold_rows<Op, 1, L>(v + o * K, K, values + o);
    } else if constexpr (inner == 1) {
      constexpr long long G = outer < 8 ? outer : 8;
      constexpr long long whole = outer / G * G;
      for (long long o = 0; o < whole; o += G) bulk::fold_rows<Op, G, L>(v + o * K, K, values + o);
      if constexpr (whole < outer)
        for (long long o = whole; o < outer; ++o) bulk::fold_rows<Op, 1, L>(v + o * K, K, values + o);
    } else {
      // Output lane o * inner + j folds lanes (o, k, j) for k in order; the j are independent.
      for (long long o = 0; o < outer; ++o) {
        L acc[inner];
        const long long base = o * K * inner;
        for (long long j = 0; j < inner; ++j) acc[j] = v[base + j];
        for (long long k = 1; k < K; ++k)
          for (long long j = 0; j < inner; ++j)
            acc[j] = static_cast<L>(batch::branch_free_t<Op>{}(acc[j], v[base + k * inner + j]));
        for (long long j = 0; j < inner; ++j) values[o * inner + j] = static_cast<T>(acc[j]);
      }
    }
    bool* poison = out.storage.poison.data();
    if (lanes.any_poison()) {
      const bool* p = lanes.poison();
      for (long long o = 0; o < outer; ++o)
        for (long long j = 0; j < inner; ++j) {
          bool any = false;
          for (long long k = 0; k < K; ++k) any = any | p[(o * K + k) * inner + j];
          poison[o * inner + j] = any;
        }
    } else {
      std::memset(poison, 0, R::size * sizeof(bool));
    }
    return true;
  } catch (const sim::kernel_error&) {
    return false;
  }
}

template <class Op, int Axis, bool Keep, class E>
auto reduce(const E& x, const std::source_location& loc) {
  using S = shape_of_t<E>;
  using T = reduced_value_t<Op, value_of_t<E>>;
  using R = reduced_shape_t<S, Axis, Keep>;
  sim::current_context().tick(loc);
  data_tile<T, R> out(detail::uninitialized_t{});
  out.storage.origin = {};
  // Integer sums lane by lane, where each step is checked for int32.
  constexpr bool checked_steps = is_integer_lane_v<T> && std::is_same_v<Op, op::add>;
  if (checked_steps || sim::lane_by_lane() || !reduce_in_bulk<Op, Axis, Keep>(x, out))
    reduce_lane_by_lane<Op, Axis, Keep>(x, out, loc);
  else if (batch::any_set(out.storage.poison.data(), R::size))
    out.storage.origin = detail::first_poison_origin(x);
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
  bool done = false;
  try {
    constexpr bool checked_steps = is_integer_lane_v<T> && std::is_same_v<Op, op::add>;
    if (checked_steps || sim::lane_by_lane()) throw sim::kernel_error({});
    const bulk::full_lanes<E> lanes(x);
    const auto* v = lanes.values();
    for (long long i = 0; i < S::size; ++i)
      acc = i == 0 ? v[i] : static_cast<lane_t<T>>(batch::branch_free_t<Op>{}(acc, v[i]));
    poisoned = lanes.any_poison() && batch::any_set(lanes.poison(), S::size);
    if (poisoned) origin = detail::first_poison_origin(x);
    done = true;
  } catch (const sim::kernel_error&) {
  }
  if (!done) {
    acc = lane_t<T>{};
    poisoned = false;
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
  }
  data_tile<T, shape<>> out(detail::uninitialized_t{});
  out.storage.value(0) = static_cast<T>(acc);
  out.storage.poisoned(0) = poisoned;
  out.storage.origin = origin;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matrix product with fp32 accumulation: a [M, K] @ b [K, N] (+ acc [M, N]).

namespace bulk {
template <class Flags>
bool any_of(const Flags& flags) {
  return batch::any_set(flags.data(), static_cast<long long>(flags.size()));
}

// An operand of dot as a float data tile: itself when it is one, else converted (exactly, for
// float16 and bfloat16 operands).
template <class S, class E>
class float_operand {
 public:
  explicit float_operand(const E& e) : tile_(detail::uninitialized_t{}) { assign(tile_, e); }
  const backend::data_tile<float, S>& get() const { return tile_; }

 private:
  backend::data_tile<float, S> tile_;
};
template <class S>
class float_operand<S, backend::data_tile<float, S>> {
 public:
  explicit float_operand(const backend::data_tile<float, S>& t) : tile_(t) {}
  const backend::data_tile<float, S>& get() const { return tile_; }

 private:
  const backend::data_tile<float, S>& tile_;
};
}  // namespace bulk

// Each output lane starts from acc and adds the K products in order of k, each with one fused
// multiply-add: the order and roundings of the lane-by-lane loop, whatever the vector width
// (simulator/dot.hpp), and of the GPU's FFMA (cuda/dot.cuh).
// With tl::tf32 the operands are first rounded to TF32 as the GPU rounds them
// (tl::round_to_tf32, tile/precision.hpp); the product is then the same exact dot.
template <int M, int N, int K, class Precision, class A, class B, class C>
auto dot(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  sim::current_context().tick(loc);
  if (sim::current_context().dry) {
    // A dry launch computes no values (launch_options::dry).
    data_tile<float, shape<M, N>> zeros(detail::uninitialized_t{});
    zeros.storage.values.fill(0.0f);
    zeros.storage.poison.fill(false);
    zeros.storage.origin = {};
    return zeros;
  }
  const bulk::float_operand<shape<M, K>, std::remove_cvref_t<A>> fa(a);
  const bulk::float_operand<shape<K, N>, std::remove_cvref_t<B>> fb(b);
  const auto& va = fa.get().storage;
  const auto& vb = fb.get().storage;
  const bulk::float_operand<shape<M, N>, std::remove_cvref_t<C>> facc(acc);
  data_tile<float, shape<M, N>> out(detail::uninitialized_t{});
  auto& vo = out.storage;
  vo.poison = facc.get().storage.poison;
  vo.origin = facc.get().storage.origin;
  if (!vo.origin.what) vo.origin = va.origin.what ? va.origin : vb.origin;
  const float* pacc = facc.get().storage.values.data();
  const auto accumulate = [&](const float* pa, const float* pb) {
    if (sim::lane_by_lane()) {
      // The reference: one output lane at a time, its K products added in order of k, each
      // with one fused multiply-add.
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          float sum = pacc[i * N + j];
          for (int k = 0; k < K; ++k) sum = std::fma(pa[i * K + k], pb[k * N + j], sum);
          if (sim::tracing_nonfinite() && !std::isfinite(sum)) [[unlikely]]
            detail::note_dot_nonfinite(pa + i * K, pb + j, N, K, pacc[i * N + j], loc);
          vo.values[i * N + j] = sum;
        }
    } else {
      sim::dot_accumulate(pa, pb, pacc, vo.values.data(), M, N, K);
    }
  };
  if constexpr (std::is_same_v<Precision, tf32_t>) {
    // Only a TF32 dot pays for the rounded copies of its operands.
    std::vector<float> rounded(M * K + K * N);
    for (int i = 0; i < M * K; ++i) rounded[i] = round_to_tf32(va.values[i]);
    for (int i = 0; i < K * N; ++i) rounded[M * K + i] = round_to_tf32(vb.values[i]);
    accumulate(rounded.data(), rounded.data() + M * K);
  } else {
    accumulate(va.values.data(), vb.values.data());
  }
  // Poison flows per row of a and column of b.
  if (bulk::any_of(va.poison) || bulk::any_of(vb.poison)) {
    std::array<bool, M> row_poison{};
    std::array<bool, N> col_poison{};
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) row_poison[i] = row_poison[i] | va.poison[i * K + k];
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) col_poison[j] = col_poison[j] | vb.poison[k * N + j];
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        vo.poison[i * N + j] = vo.poison[i * N + j] | row_poison[i] | col_poison[j];
  }
  return out;
}

// A pipelined tl::range runs as the plain loop it reads as, replaying which of its loads the GPU
// copies ahead to check those copies (simulator/prefetch.hpp); a plain one keeps nothing.
template <int Stages>
struct pipeline {
  sim::prefetch_sites sites;
  template <class State>
  void begin_iteration(State&) {
    ++sites.iteration;
    sites.site = 0;
  }
};
template <>
struct pipeline<1> {
  template <class State>
  void begin_iteration(State&) {}
};

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl

#include "simulator/descriptor.hpp"
