// A pipelined range's descriptor loads as rings: S slots of the block in shared memory, filled by
// the copy engine ahead of the iterations that read them, each slot with a full and an empty
// mbarrier, and tl::dot reading the slot where it is while its product stays in flight.
//
//   for (auto k : tl::range(0, K, BK, tl::num_stages<3>)) {
//     auto a = a_desc.load({row0, k});   // a ring site: its coordinate k is the range's index
//     auto b = b_desc.load({k, col0});
//     acc = tl::dot(a, b, acc);
//   }
//
// A site is a 2-D float16/bfloat16 descriptor load of a `const` tensor (nothing this kernel stores
// can change what a copy read ahead) whose block is one of dot's operands ([R, C], C >= 16), with
// exactly one coordinate the index of the pipelined range around it, on a GPU with the copy engine
// (sm_90a, and the host emulation) and a descriptor that has a tensor map (cuda/descriptor.cuh).
// Its map is the operand's: boxes of one 64-column panel (fewer for narrower blocks) landing in
// wgmma's swizzle, so that a slot is `swizzled<R, C, 2>` (cuda/mma.cuh) and dot reads it in place.
//
// Protocol, with n the iteration, SS the slots and `ahead` the copies in flight before the one
// read (SS - 1; SS - 2 with ring_lag 2, which keeps the product of iteration n - 1 in flight
// while its slot waits):
//
//   claim (iteration 0)  thread 0 initializes each slot's full barrier (one arrival: its own,
//                        with the block's bytes) and empty one (one arrival per warp), records
//                        the descriptor's map and its other coordinates, and issues the copies of
//                        iterations 0 .. ahead - 1
//   every iteration      if iteration m = n + ahead is one of the range's: its slot was last read
//                        by iteration m - SS; each warp waits for its products of that iteration
//                        (with ring_lag 2, all but the newest group when the newest is the last
//                        iteration's ring product) and arrives on the slot's empty barrier;
//                        thread 0 waits for the barrier's phase, arms the full barrier with the
//                        block's bytes and issues the copy. Then every thread waits for slot
//                        n % SS's full barrier (parity n / SS) and reads its registers there
//                        (ptxas drops those reads where only dot uses the tile).
//
// The slots and phases are counted in each thread's ring_site (cuda/pipeline.cuh), not computed
// from n: the protocol is the iteration's longest instruction path besides the products.
//   end of the range     every thread past its last wait (a barrier), thread 0 invalidates the
//                        barriers and frees the buffer (cuda/pipeline.cuh, ring_release)
//
// The copies ahead use the coordinates of the claim, the linked one moved by the range's step: a
// site whose descriptor (its map) or other coordinates differ from the claim's in an iteration
// loads that iteration plainly, its slot's copy unused. So does a site the tile of which dot
// cannot read in place (a copy of the tile: cuda/tile_storage.cuh), and dot stages it as any
// other. Where the site cannot be a ring (a second load of the same type in an iteration, an
// iteration that skipped it, its buffer in use by an enclosing range, no tensor map), it loads
// through the descriptor's plain path. Every way gives the block tile/descriptor.hpp defines.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/arch/tma.cuh"
#include "cuda/memory.cuh"
#include "cuda/mma.cuh"
#include "cuda/operand_stages.cuh"
#include "cuda/pipeline.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/wgmma.cuh"
#include "tile/dtypes.hpp"
#include "tile/range.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// The planted bugs the emulation's tests set to check that the ring's tests catch them
// (tests/gpu/emulation_checks.cpp): 1 waits for a slot's full barrier with the parity flipped (the
// phase before, which is complete: the slot is read before its copy lands); 2 refills a slot
// without waiting for its empty barrier (while other warps may still read it). Always 0 on a GPU.
#if defined(TL_EMULATED_GPU)
inline int ring_mutation = 0;
inline long long ring_slots_read = 0;  // slots the emulation's ring sites returned, for the tests
#else
inline constexpr int ring_mutation = 0;
#endif

// Iterations between a slot's last read and its refill, from 3 slots on: 1 (each warp waits for
// its products before it releases a slot; SS - 1 copies ahead) or 2 (the last product stays in
// flight; SS - 2 copies ahead). Measured alike on an H200 (bench/NOTES.md, issue 29), 1 a little
// faster at 8192³; TL_RING_LAG chooses for a probe.
#if defined(TL_RING_LAG)
inline constexpr int ring_lag = TL_RING_LAG;
#else
inline constexpr int ring_lag = 1;
#endif

// The shared memory one ring may take (its slots, barriers and words).
inline constexpr int max_ring_bytes = 160 * 1024;

// Whether a descriptor's blocks are dot operands, whose tensor maps land them in wgmma's swizzle.
template <class Elem, class Block>
inline constexpr bool operand_block = [] {
  if constexpr (Block::rank != 2 || !is_half_v<Elem>) return false;
  else return Block::dim(1) >= 16 && Block::dim(0) >= 8;
}();

// An operand block in shared memory: its swizzle, and the copies (one per panel of up to 64
// columns) that land it.
template <class Elem, class Block>
struct operand_block_copies {
  static constexpr int R = Block::dim(0), C = Block::dim(1);
  using swizzle = swizzled<R, C, 2>;
  static constexpr int panel_columns = swizzle::per_row;
  static constexpr int panels = C / panel_columns;
  static constexpr int bytes = R * C * 2;

  // Thread 0: the block at (row, col) into `to`, completing its bytes on `full`.
  __device__ __forceinline__ static void issue(void* to, const void* map, int row, int col, std::uint64_t* full) {
    arch::mbarrier_arrive_expect_tx(full, bytes);
    static_for<panels>([&](auto p) {
      constexpr int panel = decltype(p)::value;
      const int coords[2] = {col + panel * panel_columns, row};  // the copy engine's order
      arch::tma_load<2>(static_cast<unsigned char*>(to) + panel * swizzle::panel_bytes, map, coords, full);
    });
  }

  // The registers of layout L (16-byte vectors along the rows) from the block at `from`.
  template <class L, class Out>
  __device__ __forceinline__ static void read(Out& out, const Elem* from) {
    constexpr int V = 1 << vector_bits<Elem, L>();
    static_assert(V == swizzle::per_chunk, "tl (GPU backend): internal error: an operand block's vectors");
    const int flat0 = thread_flat<L>();
    static_for<L::registers / V>([&](auto g) {
      constexpr int first = decltype(g)::value * V;
      const int flat = flat_of<L, first>(flat0);
      const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(from + swizzle::at(flat / C, flat % C));
      static_for<V>([&](auto j) { out.storage.regs[first + decltype(j)::value] = chunk.v[j]; });
    });
  }
};

// The slots of a ring of Elem blocks of shape Block: fewer than the range's stages where they
// would pass max_ring_bytes.
template <class Elem, class Block, int Stages>
inline constexpr int ring_slots = [] {
  constexpr long long per_slot = static_cast<long long>(Block::size) * 2 + 16;
  int s = Stages;
  while (s > 1 && s * per_slot + 64 > max_ring_bytes) --s;
  return s;
}();

template <class Elem, class Block, int Slots>
struct ring_key;

// The busy word of a ring's buffer while a range holds it: "ring" (in the emulation with the
// block's run number, as a value an earlier run left is not one of this run's).
__device__ __forceinline__ unsigned ring_busy() {
#if defined(TL_EMULATED_GPU)
  return 0x72696e67u ^ emulation::this_block().run_number;
#else
  return 0x72696e67u;
#endif
}

// A ring tile's load, kept for dot to run again where the tile has no slot (operand_source), and
// where dot leaves its product of the tile in flight, the note it leaves for the ring.
template <class Plain>
struct ring_source : Plain {
  int* dot_iteration;  // the range's record (pipeline_sites::ring_dot_iteration)
  int iteration;       // the iteration that loaded the tile
  __device__ __forceinline__ void note_in_flight() const { *dot_iteration = iteration; }
};

// What a descriptor load of an operand block in a pipelined range returns: a staged tile (dot
// reads its slot in place, cuda/mma.cuh) that keeps its plain load.
template <class Elem, class Block, class PE, class MaskE>
struct ring_tile {
  using plain_source = operand_source<Elem, Block, true, PE, MaskE, scalar_expr<Elem>>;
  using source = ring_source<plain_source>;
  using layout = access_blocked_layout<Block, Elem>;
  using type = basic_tile<Elem, Block, staged_layout<layout, source>>;
};

// The low 32 bits of an address: what a ring site keeps of its key (one kernel's statics lie
// within 4 GiB of each other).
template <class T>
__device__ __forceinline__ unsigned low_bits(const T* p) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p));
}

// The slot that holds the block at `coords` (one of them the index of `range`, whose stages are
// Stages) for this iteration of a ring site, or null where the site loads it plainly. What each
// iteration needs is the site's ring_site in the range (a few registers, the same in every
// thread): nothing is recomputed from the iteration's index (bench/NOTES.md: the first ring spent
// about 200 instructions a site and iteration on that, and the kernel was bound by issuing them).
template <int Stages, class Elem, class Block, class D, class Coords>
__device__ __forceinline__ const Elem* ring_slot(range_state<Stages>* range, const D& desc, const Coords& coords) {
  using copies = operand_block_copies<Elem, Block>;
  constexpr int SS = ring_slots<Elem, Block, Stages>;
  auto& p = range->pipeline.sites;
  const int rank = p.site++;
  if constexpr (SS < 2) {
    return nullptr;
  } else {
    if (rank >= p.max_sites || p.dead[rank]) return nullptr;
    // Iterations between a slot's last read and its refill: 2 keeps the last product in flight
    // (the refill waits for the one before it), 1 waits for every product first.
    constexpr int lag = SS >= 3 ? ring_lag : 1;
    constexpr int ahead = SS - lag;
    constexpr int block_bytes = copies::bytes;
    // The barriers (full, then empty) and the busy word, then the slots, aligned for the swizzle.
    constexpr int align = copies::swizzle::alignment;
    constexpr int slots_at = (2 * SS * 8 + 16 + align - 1) / align * align;
    constexpr unsigned read_mask = 0xffu, write_shift = 8, read_parity = 1u << 16, wrapped = 1u << 17,
                       empty_parity = 1u << 18;
    // This site's instantiation: a rank whose site is another in some iteration is no ring.
    static const char key = 0;
    ring_site& r = p.ring[rank];
    const bool index_first = coords.range_axis == 0;  // selected, not indexed: no local memory
    const int other = index_first ? coords.v[1] : coords.v[0];
    const bool thread0 = threadIdx.x == 0;
    // The block whose linked coordinate is `index` and other one `at`, into slot `slot`.
    auto issue = [&](int slot, int index, int at) {
      copies::issue(r.memory + slots_at + slot * block_bytes, r.map, index_first ? index : at,
                    index_first ? at : index, r.full() + slot);
    };

    if (p.iteration == 0 && r.memory == nullptr) {
      // The claim. No ring without a map, nor where an earlier site of the iteration holds this
      // buffer.
      // Nor where a copy would start off the copy engine's 16-byte grid in the innermost
      // coordinate (cuda/descriptor.cuh, copy_engine_starts_at): the other coordinate, or every
      // index of the range where the index is the innermost one.
      constexpr long long elem_bytes = sizeof(Elem);
      const bool on_grid = index_first ? other * elem_bytes % 16 == 0
                                       : range->current * elem_bytes % 16 == 0 && range->step * elem_bytes % 16 == 0;
      p.dead[rank] = !desc.state.copies || !on_grid;
      for (int earlier = 0; earlier < rank; ++earlier)
        if (p.ring[earlier].key == low_bits(&key)) p.dead[rank] = true;
      if (p.dead[rank]) return nullptr;
      constexpr int bytes = slots_at + SS * block_bytes;
      unsigned char* const memory = shared_region<ring_key<Elem, Block, SS>, bytes, align>();
      auto* const full = reinterpret_cast<std::uint64_t*>(memory);
      auto* const busy = reinterpret_cast<unsigned*>(full + 2 * SS);
      __syncthreads();  // a range before this one has freed the buffer
      const bool taken = *busy == ring_busy();
      __syncthreads();  // every thread has read the busy word
      if (taken) {      // an enclosing range's ring of the same blocks: this one loads plainly
        p.dead[rank] = true;
        return nullptr;
      }
      r.memory = memory;
      r.key = low_bits(&key);
      r.map = desc.state.map;
      r.other = other;
      r.next_index = range->current;
      r.state = static_cast<unsigned>(SS) << 24;
      if (thread0) {
#if defined(TL_EMULATED_GPU)
        // Slots that start as NaN, whatever an earlier kernel left there: a read no copy covers
        // shows in the results.
        std::memset(memory + slots_at, 0xff, SS * block_bytes);
#endif
        *busy = ring_busy();
        for (int s = 0; s < SS; ++s) {
          arch::mbarrier_init(full + s, 1);
          arch::mbarrier_init(full + SS + s, num_warps);
        }
      }
      __syncthreads();  // the barriers are initialized before anyone arrives or waits
      // The prologue: the copies of the first `ahead` iterations (no slot comes round yet).
      for (int m = 0; m < ahead && range->within(r.next_index); ++m) {
        if (thread0) issue(m, r.next_index, other);
        r.next_index += range->step;
        r.state += 1u << write_shift;
      }
    }
    if (r.key != low_bits(&key)) {
      p.dead[rank] = true;
      return nullptr;
    }
    if (!p.reached_every_iteration(rank)) {
      // An iteration skipped the site: its copies were issued and never waited for. Wait for
      // them (those of the iterations after the last one that read), then load plainly.
      const int read = p.reached[rank] + 1;  // reads so far: iterations 0 .. reached
      const int issued = p.iteration + (r.next_index - range->current) / range->step;
      for (int m = read; m < issued; ++m) {
        arch::mbarrier_wait_parity(r.full() + (r.state & read_mask), (r.state & read_parity) ? 1u : 0u);
        r.state += 1;
        if ((r.state & read_mask) == static_cast<unsigned>(SS)) r.state = (r.state & ~read_mask) ^ read_parity;
      }
      return nullptr;
    }
    if (range->within(r.next_index)) {
      const int slot = static_cast<int>((r.state >> write_shift) & 0xffu);
      if (r.state & wrapped) {
        // The slot's last reader, `lag` iterations ago, is done in every warp: this warp's
        // products of it (all groups but the newest, where the newest is the last iteration's
        // product of a ring tile; else all), and its lanes' reads of the slot.
        if constexpr (lag >= 2) {
          if (p.ring_dot_iteration == p.iteration - 1) wgmma_wait_all_but_newest();
          else wgmma_wait_all();
        } else {
          wgmma_wait_all();
        }
#if !defined(TL_EMULATED_GPU)
        __syncwarp();
#endif
        if (lane_id() == 0) arch::mbarrier_arrive(r.full() + SS + slot);
      }
      if (thread0) {
        if ((r.state & wrapped) && ring_mutation != 2)
          arch::mbarrier_wait_parity(r.full() + SS + slot, (r.state & empty_parity) ? 1u : 0u);
        issue(slot, r.next_index, r.other);
      }
      r.next_index += range->step;
      r.state += 1u << write_shift;
      if (((r.state >> write_shift) & 0xffu) == static_cast<unsigned>(SS)) {
        // Round again: from the second time on, the empty barrier's phase flips.
        r.state = (r.state & ~(0xffu << write_shift)) ^ ((r.state & wrapped) ? empty_parity : wrapped);
      }
    }
    const int slot = static_cast<int>(r.state & read_mask);
    arch::mbarrier_wait_parity(r.full() + slot, ((r.state & read_parity) ? 1u : 0u) ^ (ring_mutation == 1 ? 1u : 0u));
    r.state += 1;
    if ((r.state & read_mask) == static_cast<unsigned>(SS)) r.state = (r.state & ~read_mask) ^ read_parity;
    if (r.map != desc.state.map || r.other != other) return nullptr;
#if defined(TL_EMULATED_GPU)
    ++ring_slots_read;
#endif
    return reinterpret_cast<const Elem*>(r.memory + slots_at + slot * block_bytes);
  }
}

// A ring site's load (`slot` from ring_slot, null where the site loads plainly) as a tile that
// keeps its load: one tile, filled on either path, so that it stays in registers. `note` and
// `iteration`: the range's record of in-flight products and the iteration.
template <class Elem, class Block, class PE, class MaskE>
__device__ __forceinline__ auto ring_tile_of(const Elem* slot, const PE& pe, const MaskE& in_shape, int* note,
                                             int iteration) {
  using types = ring_tile<Elem, Block, PE, MaskE>;
  typename types::type out(detail::uninitialized_t{});
  out.storage.again.keep(typename types::source{{pe, in_shape, scalar_expr<Elem>(Elem(0))}, note, iteration});
  if (slot != nullptr) {
    out.storage.staged = slot;
    operand_block_copies<Elem, Block>::template read<typename types::layout>(out, slot);
  } else {
    const auto t = load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0)));
    using From = typename std::remove_cvref_t<decltype(t)>::layout_type;
    static_assert(std::is_same_v<From, typename types::layout>,
                  "tl (GPU backend): internal error: a descriptor load's layout");
    static_for<From::registers>([&](auto k) { out.storage.regs[k] = t.storage.regs[k]; });
  }
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
