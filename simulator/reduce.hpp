// Reductions (tl::sum, tl::max, tl::min along an axis or over a whole tile): lanes folded in
// index order with the operation's own arithmetic (tile/lanes.hpp). The bulk path gives the same
// bits: its sums keep that order, and maxima and minima give the same bits in any order
// (extreme_of_row), so theirs need not.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <source_location>
#include <string>
#include <type_traits>

#include "simulator/batch.hpp"
#include "simulator/context.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/origin.hpp"
#include "simulator/poison_walk.hpp"
#include "simulator/tile_storage.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

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
        for (long long o = whole; o < outer; ++o)
          bulk::fold_rows<Op, 1, L>(v + o * K, K, values + o);
    } else if constexpr (inner == 1) {
      constexpr long long G = outer < 8 ? outer : 8;
      constexpr long long whole = outer / G * G;
      for (long long o = 0; o < whole; o += G) bulk::fold_rows<Op, G, L>(v + o * K, K, values + o);
      if constexpr (whole < outer)
        for (long long o = whole; o < outer; ++o)
          bulk::fold_rows<Op, 1, L>(v + o * K, K, values + o);
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

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
