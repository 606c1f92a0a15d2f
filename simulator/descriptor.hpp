// Tensor descriptors in the simulator (the hooks of tile/descriptor.hpp). A descriptor's block
// moves as the masked load or store it means, through the same checked path as tl::load and
// tl::store (bounds, poison, unwritten elements, races, the budgets' counters), with three checks
// of its own, each an `out-of-bounds` diagnostic: a descriptor whose shape and strides reach
// outside its buffer (at the line that made it), a block wholly outside the descriptor's shape (a
// block that only overlaps the edge reads zeros there and writes nothing there, the copy engine's
// rule; one wholly off is a bug in its coordinates), and a shape with a dimension below 1. The
// access trace records the block's elements inside the shape only: those outside have no address.
#pragma once

#include <source_location>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/memory.hpp"
#include "simulator/tile_storage.hpp"
#include "simulator/trace.hpp"
#include "tile/expr.hpp"

namespace tl::sim {

// Raises the diagnostic of a descriptor (its base at `base_offset` of `buf`) whose shape has a
// dimension below 1 or whose shape and strides reach outside `buf`; returns when it is fine.
void check_descriptor(const buffer& buf, long long base_offset, const int* shape,
                      const int* strides, int rank, const std::source_location& made);

// Raises the diagnostic of a load (or store) of the block at `coords` that lies wholly outside
// the descriptor's shape; returns when the block has an element inside it.
void check_block_on_tensor(const buffer& buf, bool store, const int* coords, const int* block,
                           const int* shape, int rank, const std::source_location& made,
                           const std::source_location& loc);

}  // namespace tl::sim

namespace tl {
inline namespace TL_ABI {

template <int Rank>
struct index_list;  // tile/descriptor.hpp

namespace backend {

// Where the descriptor was made, which its diagnostics name.
template <class T, int Rank>
struct descriptor_state {
  std::source_location made_at;
};

template <class D>
void make_descriptor(D& desc, const std::source_location& loc) {
  sim::current_context().tick(loc);
  desc.state.made_at = loc;
  const sim::buffer* buf = desc.base.address.buf;
  if (!buf) sim::raise_at(sim::kind::crash, "tl::make_tensor_descriptor of a null pointer", loc);
  sim::check_descriptor(*buf, desc.base.address.offset, desc.shape.v, desc.strides.v, D::rank, loc);
}

// The block's elements inside the shape, each at its address.
template <class S, class PE, class MaskE>
void trace_descriptor_block(sim::access_trace& trace, const PE& pe, const MaskE& in_shape,
                 const sim::buffer& buf, int program, bool is_store) {
  tl::detail::for_each_pos<S>([&](const pos<S::rank>& p, long long) {
    if (!in_shape.eval(broadcast_pos<shape_of_t<MaskE>, S>(p))) return;
    const long long offset =
        pe.base.address.offset + static_cast<long long>(pe.offsets.eval(broadcast_pos<typename PE::shape_type, S>(p)));
    trace.record(buf, program, offset, is_store ? sim::traced_store : sim::traced_load);
  });
}

template <class Elem, class Block, class D, class PE, class MaskE>
auto descriptor_load(const D& desc, const index_list<D::rank>& coords, const PE& pe, const MaskE& in_shape,
                     const std::source_location& loc) {
  sim::check_block_on_tensor(*desc.base.address.buf, false, coords.v, Block::dims.data(),
                             desc.shape.v, Block::rank, desc.state.made_at, loc);
  return load_recorded<Elem, Block, true>(
      pe, in_shape, scalar_expr<Elem>(Elem(0)), loc,
      [&](sim::access_trace& trace, const sim::buffer& buf, int program) {
        trace_descriptor_block<Block>(trace, pe, in_shape, buf, program, false);
      });
}

template <class Elem, class Block, class D, class PE, class V, class MaskE>
void descriptor_store(const D& desc, const index_list<D::rank>& coords, const PE& pe, const V& values,
                      const MaskE& in_shape, const std::source_location& loc) {
  sim::check_block_on_tensor(*desc.base.address.buf, true, coords.v, Block::dims.data(),
                             desc.shape.v, Block::rank, desc.state.made_at, loc);
  store_recorded<Elem, Block>(pe, values, in_shape, loc,
                              [&](sim::access_trace& trace, const sim::buffer& buf, int program) {
                                trace_descriptor_block<Block>(trace, pe, in_shape, buf, program, true);
                              });
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
