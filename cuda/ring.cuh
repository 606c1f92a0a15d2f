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
// read (SS - 2 from 3 slots on, so that the product of iteration n - 1 stays in flight while its
// slot waits; SS - 1 with 2 slots, whose product is waited for first):
//
//   claim (iteration 0)  thread 0 initializes each slot's full barrier (one arrival: its own,
//                        with the block's bytes) and empty one (one arrival per warp), records
//                        the descriptor's map and its other coordinates, and issues the copies of
//                        iterations 0 .. ahead - 1
//   every iteration      if iteration m = n + ahead is one of the range's: its slot was last read
//                        by iteration m - SS; each warp waits for its products of that iteration
//                        (all but the newest group when the newest is the last iteration's ring
//                        product, else all) and arrives on the slot's empty barrier; thread 0
//                        waits for the barrier's phase, arms the full barrier with the block's
//                        bytes and issues the copy. Then every thread waits for slot n % SS's full
//                        barrier (parity n / SS) and reads its registers there.
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

#if defined(TL_RING_LAG)
inline constexpr int ring_lag = TL_RING_LAG;
#else
inline constexpr int ring_lag = 2;
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

// The slot that holds the block at `coords` (one of them the index of `range`, whose stages are
// Stages) for this iteration of a ring site, or null where the site loads it plainly. The state
// each iteration needs is the site's ring_site in the range (registers, the same in every thread):
// its buffer's address, the slots and rounds of the next read and copy, the claim's map and
// coordinate; nothing is recomputed from the iteration's index (bench/NOTES.md: the first ring
// spent about 200 instructions a site and iteration on that).
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
    // This site's instantiation: a rank whose site is another in some iteration is no ring.
    static const char key = 0;
    ring_site& r = p.ring[rank];
    const bool index_first = coords.range_axis == 0;  // selected, not indexed: no local memory
    const int other = index_first ? coords.v[1] : coords.v[0];
    const bool thread0 = threadIdx.x == 0;
    // The block whose linked coordinate is `index` and other one `at`, into slot `slot`.
    auto issue = [&](int slot, const void* map, int index, int at) {
      copies::issue(r.memory + slot * block_bytes, map, index_first ? index : at, index_first ? at : index,
                    r.full + slot);
    };

    if (p.iteration == 0 && r.memory == nullptr) {
      // The claim. No ring without a map (the copies ahead use the claim's), nor where an earlier
      // site of the iteration holds this buffer.
      p.dead[rank] = !desc.state.copies;
      for (int earlier = 0; earlier < rank; ++earlier)
        if (p.ring[earlier].key == &key) p.dead[rank] = true;
      if (p.dead[rank]) return nullptr;
      // The slots, then the full barriers, the empty ones, and the busy word.
      constexpr int bytes = SS * block_bytes + 2 * SS * 8 + 16;
      unsigned char* const memory = shared_region<ring_key<Elem, Block, SS>, bytes, copies::swizzle::alignment>();
      auto* const full = reinterpret_cast<std::uint64_t*>(memory + SS * block_bytes);
      auto* const busy = reinterpret_cast<unsigned*>(full + 2 * SS);
      __syncthreads();  // a range before this one has freed the buffer
      const bool taken = *busy == ring_busy();
      __syncthreads();  // every thread has read the busy word
      if (taken) {      // an enclosing range's ring of the same blocks: this one loads plainly
        p.dead[rank] = true;
        return nullptr;
      }
      // The range's iterations from this one on (at least 1: this one runs).
      const long long step = range->step;
      const long long span = step > 0 ? static_cast<long long>(range->hi) - range->current
                                      : static_cast<long long>(range->current) - range->hi;
      const long long magnitude = step > 0 ? step : -step;
      const long long iterations = (span + magnitude - 1) / magnitude;
      r.memory = memory;
      r.full = full;
      r.key = &key;
      r.map = desc.state.map;
      r.other = other;
      r.slots = SS;
      r.next_index = range->current;
      r.to_issue = iterations < (1LL << 30) ? static_cast<int>(iterations) : (1 << 30);
      if (thread0) {
#if defined(TL_EMULATED_GPU)
        // Slots that start as NaN, whatever an earlier kernel left there: a read no copy covers
        // shows in the results.
        std::memset(memory, 0xff, SS * block_bytes);
#endif
        *busy = ring_busy();
        for (int s = 0; s < SS; ++s) {
          arch::mbarrier_init(full + s, 1);
          arch::mbarrier_init(full + SS + s, num_warps);
        }
      }
      __syncthreads();  // the barriers are initialized before anyone arrives or waits
      for (int m = 0; m < ahead && r.to_issue > 0; ++m) {
        if (thread0) issue(r.write_slot, r.map, r.next_index, r.other);
        r.next_index += range->step;
        --r.to_issue;
        ++r.outstanding;
        ++r.write_slot;  // ahead < SS: no wrap in the prologue
      }
    }
    if (r.key != &key) {
      p.dead[rank] = true;
      return nullptr;
    }
    if (!p.reached_every_iteration(rank)) {
      // An iteration skipped the site: its copies were issued and never waited for. Wait for
      // them, then load plainly from now on.
      for (; r.outstanding > 0; --r.outstanding) {
        arch::mbarrier_wait_parity(r.full + r.read_slot, r.read_parity);
        if (++r.read_slot == SS) r.read_slot = 0, r.read_parity ^= 1u;
      }
      return nullptr;
    }
    if (r.to_issue > 0) {
      const int slot = r.write_slot;
      if (r.write_round > 0) {
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
        if (lane_id() == 0) arch::mbarrier_arrive(r.full + SS + slot);
      }
      if (thread0) {
        if (r.write_round > 0 && ring_mutation != 2)
          arch::mbarrier_wait_parity(r.full + SS + slot, static_cast<unsigned>(r.write_round - 1) & 1u);
        issue(slot, r.map, r.next_index, r.other);
      }
      r.next_index += range->step;
      --r.to_issue;
      ++r.outstanding;
      if (++r.write_slot == SS) r.write_slot = 0, ++r.write_round;
    }
    const int slot = r.read_slot;
    arch::mbarrier_wait_parity(r.full + slot, r.read_parity ^ (ring_mutation == 1 ? 1u : 0u));
    if (++r.read_slot == SS) r.read_slot = 0, r.read_parity ^= 1u;
    --r.outstanding;
    if (r.map != desc.state.map || r.other != other) return nullptr;
#if defined(TL_EMULATED_GPU)
    ++ring_slots_read;
#endif
    return reinterpret_cast<const Elem*>(r.memory + slot * block_bytes);
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
