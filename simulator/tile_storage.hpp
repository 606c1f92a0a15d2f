// A data tile in the simulator: all its elements, row-major, each with a poison bit, and where its
// poison was made. One layout for every tile: the simulator runs a program as sequential code, so
// no tile is spread over threads and no layout ever needs converting.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <new>
#include <source_location>
#include <type_traits>
#include <utility>
#include <vector>

#include "simulator/context.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/origin.hpp"
#include "tile/expr.hpp"
#include "tile/memory.hpp"

namespace tl {
inline namespace TL_ABI {

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
using tile_array =
    std::conditional_t<(N >= heap_tile_elements), heap_array<T, N>, std::array<T, N>>;

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

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
