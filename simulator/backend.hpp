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
//
// One family of operations per header:
//   simulator/tile_storage.hpp  a data tile's elements, poison bits and poison origin
//   simulator/evaluate.hpp      evaluating an expression into a data tile
//   simulator/gather.hpp        where the active lanes of a load or store go, whole rows if it can
//   simulator/memory.hpp        load and store, every active lane checked against its buffer
//   simulator/reduce.hpp        reductions along an axis and over a whole tile
//   simulator/partner_lanes.hpp the step of scans and sorts: lanes exchanged across one bit of an axis
//   simulator/dot_tiles.hpp     dot of data tiles (its arithmetic: simulator/dot.hpp)
//   simulator/prefetch.hpp      a pipelined tl::range, and its copies ahead replayed and checked
//   simulator/descriptor.hpp    tensor descriptors' blocks
//   simulator/atomic.hpp        atomics, lane after lane, and their races with plain accesses
#pragma once

#include <source_location>

#include "simulator/atomic.hpp"
#include "simulator/context.hpp"
#include "simulator/descriptor.hpp"
#include "simulator/dot_tiles.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/gather.hpp"
#include "simulator/memory.hpp"
#include "simulator/partner_lanes.hpp"
#include "simulator/prefetch.hpp"
#include "simulator/reduce.hpp"
#include "simulator/tile_storage.hpp"

namespace tl {
inline namespace TL_ABI {
namespace backend {

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
}  // namespace TL_ABI
}  // namespace tl
