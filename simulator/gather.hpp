// Where the active lanes of one load or store go, found for the whole tile at once. Whole rows
// where that can be shown without evaluating each lane (from an affine form's extremes, or from a
// part constant along rows plus a part that varies only along them), so that the access moves one
// memcpy per row; each active lane's offset otherwise. simulator/memory.hpp's loads and stores
// and simulator/prefetch.hpp's replay of the GPU's copies ahead gather their lanes here.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include "simulator/batch.hpp"
#include "simulator/buffer.hpp"
#include "simulator/front_hooks.hpp"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {

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
  constexpr long long lowest = std::numeric_limits<int>::min();
  constexpr long long highest = std::numeric_limits<int>::max();
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

}  // namespace detail

}  // namespace TL_ABI
}  // namespace tl
