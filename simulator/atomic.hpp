// The atomics (tile/atomic.hpp) in the simulator: lane after lane, in the order of the lanes,
// programs one after another in the launch's order, so the results are deterministic. Every
// active lane is checked as a store is (poison in mask, offset, value; offsets past int32;
// bounds), and the element must hold a value (outputs start poisoned: an atomic on one reads
// it). Atomics of different programs on one element never race with each other; an atomic and
// a plain load or store of another program on one element in the same launch do (race-read-write
// and race-write-write), checked here for a plain access that came first and in
// simulator/memory.hpp for one that comes after (the buffer's atomic_state records who updated
// what).
//
// Counters: each active lane counts one load and one store of the buffer (an atomic reads the
// element and writes it back) and one atomic; the shadow state's plain read and write counts,
// which the race checks between plain accesses use, are left alone.
#pragma once

#include <limits>
#include <source_location>
#include <type_traits>
#include <string>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/memory.hpp"
#include "simulator/poison_walk.hpp"
#include "simulator/tile_storage.hpp"
#include "simulator/trace_hook.hpp"
#include "tile/atomic_ops.hpp"
#include "tile/lanes.hpp"

namespace tl {
inline namespace TL_ABI {
namespace backend {

template <class Op, class Elem, class S, class PE, class C, class V, class MaskE>
auto atomic(const PE& pe, const C& cmp, const V& v, const MaskE& m,
            const std::source_location& loc) {
  static_assert(atomic_op::is_atomic_op_v<Op>, "tl (simulator): internal error: not an atomic");
  using VS = shape_of_t<V>;
  using CS = shape_of_t<C>;
  auto& ctx = sim::current_context();
  ctx.tick(loc);
  sim::buffer* buf = pe.base.address.buf;
  if (!buf) sim::raise_at(sim::kind::crash, std::string(Op::name) + " through a null pointer", loc);
  data_tile<Elem, S> out(detail::uninitialized_t{});
  auto& old = out.storage;
  old.origin = {};
  if (ctx.dry) {
    detail::dry_access<S>(pe, m, *buf, "atomically updates", loc);
    old.values.fill(Elem{});
    old.poison.fill(false);
    return out;
  }
  if (ctx.trace)
    detail::trace_access<S>(*ctx.trace, pe, m, *buf, ctx.linear_program, true);
  const int me = ctx.linear_program;
  const long long stores_before = buf->counters.stores;
  Elem* data = static_cast<Elem*>(buf->data());
  sim::access_check check("atomically updates", *buf, loc, S::rank);
  check.set_masked(!std::is_same_v<MaskE, full_expr<bool, shape<>>>);
  detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
    old.value(i) = detail::poison_value<Elem>();
    old.poisoned(i) = true;
    const auto lane = detail::mask_lane<S>(m, p, i, check);
    if (lane == detail::lane_mask::poison) return;
    if (lane == detail::lane_mask::off) {
      ++buf->counters.masked_stores;
      if (!old.origin.what) old.origin = {"the masked-off lanes of an atomic", loc};
      return;
    }
    const long long off = detail::lane_offset<S>(pe, p, i, *buf, check);
    if (off < 0) return;
    const auto pv = broadcast_pos<VS, S>(p);
    const auto pc = broadcast_pos<CS, S>(p);
    if (v.poison(pv) || cmp.poison(pc)) {
      check.add(check.poison_value, i, p.c, off);
      check.note_origin(v.poison(pv) ? walk::poison_origin_of(v, pv)
                                     : walk::poison_origin_of(cmp, pc));
      return;
    }
    const auto shadow = buf->shadow[off];
    const int w = shadow.writer;
    if (w == sim::never_written) {
      check.add(check.unwritten, i, p.c, off,
                "an atomic reads the element: the host zeroes an output that atomics add into");
      return;
    }
    if (w >= 0 && w != me) {
      check.add(check.atomic_ww, i, p.c, off,
                "written by a plain tl::store of program " + sim::program_string(w));
      return;
    }
    const int r = shadow.reader == me ? shadow.earlier_reader : shadow.reader;
    if (r >= 0 && r != me) {
      check.add(check.atomic_rw, i, p.c, off,
                "read by a plain tl::load of program " + sim::program_string(r));
      return;
    }
    ++buf->counters.loads;
    ++buf->counters.stores;
    ++buf->counters.atomics;
    ++buf->program_loads;
    ++buf->program_stores;
    buf->note_atomic(off, me);
    const Elem before = data[off];
    if constexpr (std::is_same_v<Op, atomic_op::add> && std::is_same_v<Elem, int>) {
      // The GPU's atomicAdd wraps; as for every integer `+`, the simulator reports it.
      const long long sum = static_cast<long long>(before) + v.eval(pv);
      if (sum < std::numeric_limits<int>::min() || sum > std::numeric_limits<int>::max())
        sim::raise_at(sim::kind::index_overflow,
                      std::string(Op::name) + " on " + buf->name() + buf->coords_of(off) +
                          ": " + std::to_string(before) + " + " +
                          std::to_string(static_cast<long long>(v.eval(pv))) + " = " +
                          std::to_string(sum) + " leaves int32. Count in fewer steps, or in "
                          "float32.",
                      loc);
    }
    data[off] = Op::template apply<Elem>(before, op::cast_to<Elem>{}(v.eval(pv)),
                                         op::cast_to<Elem>{}(cmp.eval(pc)));
    old.value(i) = before;
    old.poisoned(i) = false;
  });
  check.raise_if_any();
  // Counted as stores per line: a budget report then names the line of the atomic.
  buf->count_line(loc, true, buf->counters.stores - stores_before);
  return out;
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
