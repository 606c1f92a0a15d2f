// Evaluating an expression into a data tile (assignment, tl::materialize), and finding where the
// poison of its lanes was made, which the reports of a later use name.
#pragma once

#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "simulator/batch.hpp"
#include "simulator/context.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/origin.hpp"
#include "simulator/poison_walk.hpp"
#include "simulator/tile_storage.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {

namespace backend {

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

// Evaluates an expression into a data tile of its own shape and type.
template <class E>
auto materialize(const E& e) {
  data_tile<value_of_t<E>, shape_of_t<E>> out(detail::uninitialized_t{});
  assign(out, e);
  return out;
}

}  // namespace backend

namespace detail {

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

}  // namespace detail

}  // namespace TL_ABI
}  // namespace tl
