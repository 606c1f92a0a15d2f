// tl::load and tl::store (and, through load_recorded and store_recorded, the blocks of tensor
// descriptors, simulator/descriptor.hpp). Every active lane is checked against the buffer its
// pointer came from (bounds, offsets past int32, poison, elements nothing wrote, races between
// programs), and the buffer's counters feed the efficiency budgets.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "simulator/batch.hpp"
#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/gather.hpp"
#include "simulator/origin.hpp"
#include "simulator/poison_walk.hpp"
#include "simulator/prefetch.hpp"
#include "simulator/tile_storage.hpp"
#include "simulator/trace.hpp"
#include "simulator/trace_hook.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"
#include "tile/range_leaves.hpp"

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
  // An element atomics updated: the lane-by-lane load checks each lane against them.
  if (buf.atomics_used()) return false;
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
  if (buf.atomics_used()) return false;
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
    if (const int a = buf->atomic_by_other(off, me); a >= 0)
      check.add(check.atomic_rw, i, p.c, off, "updated by an atomic of program " +
                                                  sim::program_string(a) + " in this launch");
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
    (index_stages<MaskE>() == 0 ||
     index_stages<MaskE>() == index_stages<typename PE::offsets_type>()) &&
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
  if constexpr (gpu_may_prefetch<PE, MaskE>)
    sim::replay_prefetch<Elem, S, PE, MaskE, OtherE>(pe, m, *buf, loc);
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
    else mine.insert(std::lower_bound(mine.begin(), mine.end(),
                                      std::pair<long long, long long>{off, -1}),
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
    if (const int a = buf->atomic_by_other(off, me); a >= 0) {
      check.add(check.atomic_ww, i, p.c, off, "updated by an atomic of program " +
                                                  sim::program_string(a) + " in this launch");
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

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
