// The loads of a pipelined range that can be tl::dot's operands: copied from global memory
// straight into the swizzled shared-memory rows that dot reads its fragments from (cuda/mma.cuh),
// S - 1 iterations ahead, with no register round trip.
//
// A load of a 2-D tile of float16 or bfloat16 ([R, C], C at least 16) inside
// `tl::range(..., tl::num_stages<S>)` whose offsets and mask the range's index moves (as
// cuda/pipeline.cuh requires) and whose `other` holds no data and no index is such a site. Its
// stage buffer holds S' slots of the whole block's [R, C] tile in `swizzled<R, C, 2>` rows, the
// layout dot stores a [M, K] or [K, N] operand in. The block copies a slot together: each thread
// takes 16-byte chunks (8 elements of a row) in turn. Where the whole tile is on in the mask, its
// rows consecutive in memory and 16-byte aligned (decided once per copy from the affine forms of
// cuda/runs.cuh: an interior tile of a matmul), every chunk is one cp.async with no test of its
// own. Else each chunk is tested: one whose elements are all on, consecutive and aligned goes with
// one cp.async; any other is read lane by lane (a masked-off lane never touches memory and takes
// `other`, cast as a plain load casts it) and stored at once. So a slot holds exactly the tile a
// plain load gives.
//
//   first iteration   claim the buffer (its owner and claimed scalars), copy iterations
//                     0 .. S' - 2
//   every iteration   wait for this iteration's copies, a proxy fence where wgmma may read them
//                     (cuda/wgmma.cuh), one barrier (every thread's copies are in,
//                     and every thread's reads of the slot about to be refilled, an iteration ago,
//                     are done), copy iteration n + S' - 1 into the slot iteration n - 1 used, and
//                     read the tile's registers from the slot
//
// The tile returned has a staged layout (cuda/tile_storage.cuh): its storage also points to the
// slot, and a dot of it (or of tl::trans of it, as b: cuda/tile_storage.cuh) reads its fragments
// there, with no barrier and no staging of its own. The registers are read as well (a load is a
// value), and cost nothing where nothing else uses them.
// A load through a tl::ptr<const T> also keeps the load itself in the tile, so that where the site
// loaded plainly (below) dot loads it again where it stages it, and no registers of the tile live
// from the site to the dot on any path (measured on an H200: the 8-warp 128 x 128 x 64 matmul
// from 206 registers to 152; with min_blocks_per_multiprocessor = 2, 128 and two blocks per
// multiprocessor, bench/HISTORY.md).
// A site that comes after another staged site of the same iteration skips the barrier where the
// earlier site's wait already covered its copies (the first site waits for the later sites'
// copies of the iteration too, which were committed right after its own once the pipeline is
// full). The bookkeeping besides the owner (each thread's own: the value its claim wrote, which
// the range keeps) is one word per slot and the claimed scalars, the same in every thread:
// thread 0 writes them, between barriers.
//
// Everything else is cuda/pipeline.cuh's, with the same fallbacks: a load the site cannot copy
// ahead (a second load of the type in one iteration, a nested range's claim, scalars or a base
// pointer that changed since the claim) is loaded plainly, and its tile has no slot, so dot stages
// it (loading it again where the tile kept its load). Where two slots do not fit in
// max_operand_stage_bytes (tile/range_leaves.hpp) the load goes to cuda/pipeline.cuh's per-thread
// slots (or plainly).
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/evaluate.cuh"
#include "cuda/memory.cuh"
#include "cuda/mma.cuh"
#include "cuda/pipeline.cuh"
#include "cuda/runs.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/dtypes.hpp"
#include "tile/memory.hpp"
#include "tile/range.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

template <class Elem, class S, class PE, class MaskE, class OtherE>
inline constexpr bool can_stage_operand = [] {
  if constexpr (!is_half_v<Elem> || S::rank != 2) {
    return false;
  } else {
    return S::dim(1) >= 16 && S::dim(0) >= 8 && can_pipeline<PE, MaskE> && !has_data_v<OtherE> &&
           index_stages<OtherE>() == 0 &&
           state_words<PE>() + state_words<MaskE>() + state_words<OtherE>() <=
               pipeline_sites<2>::max_state_words;
  }
}();

template <class PE, class MaskE, class OtherE>
inline constexpr int operand_state_words = state_words<PE>() + state_words<MaskE>() + state_words<OtherE>();

// The stages of an operand site: the range's, fewer where the slots and the bookkeeping would pass
// max_operand_stage_bytes.
template <class Elem, class S, int Stages, int StateWords>
inline constexpr int operand_site_stages = [] {
  constexpr long long per_stage = static_cast<long long>(S::size) * sizeof(Elem);
  int s = Stages;
  while (s > 1 && s * per_stage + ((1LL + s) * threads + StateWords) * 4LL > max_operand_stage_bytes) --s;
  return s;
}();

// A site's load, kept in the tile it returns so that dot can load it again (cuda/tile_storage.cuh,
// staged_registers): its pointers, mask and `other` hold their values, index included.
template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
struct operand_source {
  PE pe;
  MaskE m;
  OtherE o;
  __device__ __forceinline__ auto load() const { return cuda::load<Elem, S, has_other>(pe, m, o); }
};

// The thread index a slot's copy hands its 16-byte chunks out by (chunk c to thread c % threads):
// read anew in each copy (thread_index_here), so that the chunks' rows, columns and addresses are
// recomputed rather than kept in registers across the loop (registers bound how many blocks a
// multiprocessor holds: bench/HISTORY.md), and known to be below `threads`, so that they cost a
// few shifts and adds.
__device__ __forceinline__ unsigned copying_thread() {
  return static_cast<unsigned>(thread_index_here()) & (threads - 1);
}

// Calls chunk(row, col) for each 16-byte chunk of an S-shaped slot that this thread copies (chunk
// c, counted along the rows, to thread c % threads), row and col unsigned: shifts and masks.
template <class S, int per_chunk, class F>
__device__ __forceinline__ void for_each_chunk_of_this_thread(F&& chunk) {
  constexpr unsigned per_row = S::dim(1) / per_chunk;
  constexpr unsigned chunks = S::dim(0) * per_row;
  constexpr int rounds = (chunks + threads - 1) / threads;
  const unsigned t = copying_thread();
  static_for<rounds>([&](auto r) {
    const unsigned c = t + decltype(r)::value * threads;
    if (chunks % threads != 0 && c >= chunks) return;
    chunk(c / per_row, c % per_row * per_chunk);
  });
}

// The copy of a slot chunk by chunk: a chunk whose elements are all on, consecutive and aligned
// goes with one cp.async, any other lane by lane.
template <class Elem, class S, class Swz, class PE, class MaskE, class OtherE>
__device__ __forceinline__ void copy_chunk_by_chunk(const PE& pe, const MaskE& m, const OtherE& o,
                                                    const Elem* base, Elem* to) {
  using Offsets = typename PE::offsets_type;
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<MaskE>;
  using OtherS = shape_of_t<OtherE>;
  constexpr int per_chunk = Swz::per_chunk;
  for_each_chunk_of_this_thread<S, per_chunk>([&](unsigned chunk_row, unsigned chunk_col) {
    const int row = static_cast<int>(chunk_row), col = static_cast<int>(chunk_col);
    Elem* const chunk = to + Swz::at(row, col);
    pos<2> q{};
    q.slot = -1;
    q.c[0] = row;
    q.c[1] = col;
    if constexpr (runs::applies<S, per_chunk, Offsets, MaskE>) {
      int first;
      if (whole_run<S, per_chunk>(pe.offsets, m, q, first) &&
          reinterpret_cast<std::uintptr_t>(base + first) % 16 == 0) {
        copy_async<16>(chunk, base + first);
        return;
      }
    }
    bool on[per_chunk];
    int offset[per_chunk];
    static_for<per_chunk>([&](auto j) {
      q.c[1] = col + decltype(j)::value;
      on[j] = m.eval(broadcast_pos<MaskS, S>(q));
      offset[j] = static_cast<int>(pe.offsets.eval(broadcast_pos<OffS, S>(q)));
    });
    if constexpr (!runs::applies<S, per_chunk, Offsets, MaskE>) {
      bool whole = true;
      static_for<per_chunk>([&](auto j) { whole = whole && on[j] && offset[j] == offset[0] + j; });
      whole = whole && reinterpret_cast<std::uintptr_t>(base + offset[0]) % 16 == 0;
      if (whole) {
        copy_async<16>(chunk, base + offset[0]);
        return;
      }
    }
    vector<Elem, per_chunk> v;
    static_for<per_chunk>([&](auto j) {
      q.c[1] = col + decltype(j)::value;
      v.v[j] = on[j] ? base[offset[j]] : op::cast_to<Elem>{}(o.eval(broadcast_pos<OtherS, S>(q)));
    });
    *reinterpret_cast<vector<Elem, per_chunk>*>(chunk) = v;
  });
}

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
__device__ __forceinline__ auto staged_operand_load(const PE& pe, const MaskE& m, const OtherE& o) {
  using Offsets = typename PE::offsets_type;
  using L = access_blocked_layout<S, Elem>;
  // Only what nothing stores to can be loaded again later with the same values.
  using Source = std::conditional_t<std::is_const_v<typename PE::element_type>,
                                    operand_source<Elem, S, has_other, PE, MaskE, OtherE>, void>;
  using Tile = basic_tile<Elem, S, staged_layout<L, Source>>;
  auto keep_the_load = [&](Tile& t) {
    if constexpr (!std::is_void_v<Source>) {
      t.storage.again.keep(Source{pe, m, o});
    }
  };
  constexpr int St = index_stages<Offsets>();
  constexpr int state = operand_state_words<PE, MaskE, OtherE>;
  constexpr int SS = operand_site_stages<Elem, S, St, state>;
  static_assert(SS >= 2, "tl (GPU backend): internal error: an operand site of one stage");
  constexpr int R = S::dim(0), Cols = S::dim(1);
  using Swz = swizzled<R, Cols, 2>;
  constexpr int per_chunk = Swz::per_chunk;  // 8

  // A plain load, as a staged tile with no slot.
  auto plain = [&] {
    Tile out(detail::uninitialized_t{});
    const auto t = load<Elem, S, has_other>(pe, m, o);
    using From = typename std::remove_cvref_t<decltype(t)>::layout_type;
    static_assert(std::is_same_v<From, L>, "tl (GPU backend): internal error: a load's layout");
    static_for<L::registers>([&](auto k) { out.storage.regs[k] = t.storage.regs[k]; });
    keep_the_load(out);
    return out;
  };

  range_state<St>* range = nullptr;
  bool several = false;
  find_range<St>(pe.offsets, range, several);
  find_range<St>(m, range, several);
  auto& p = range->pipeline.sites;
  const int rank = p.site++;
  if (several || rank >= p.max_sites || p.dead[rank]) return plain();
  const int staged_rank = p.staged_site++;

  // The slots, then each thread's words (word-major, so a warp's accesses are consecutive): its
  // owner and the cp.async group of each slot's copies; then the claimed scalars, the same in
  // every thread, written by thread 0 between barriers.
  constexpr int slot_elements = R * Cols;
  constexpr int bytes = SS * slot_elements * 2 + ((1 + SS) * threads + state) * 4;
  // Aligned to the swizzle's period, as wgmma addresses it (cuda/wgmma.cuh).
  unsigned char* const memory =
      shared_region<pipeline_key<PE, MaskE, OtherE, S, Tile>, bytes, Swz::alignment>();
  Elem* const stages = reinterpret_cast<Elem*>(memory);
  const int tid = static_cast<int>(threadIdx.x);
  unsigned* const words = reinterpret_cast<unsigned*>(memory + SS * slot_elements * 2);
  unsigned& owner = words[tid];
  auto group = [&](int slot) -> unsigned& { return words[(1 + slot) * threads + tid]; };
  constexpr unsigned not_copied = 0xffffffffu;
  auto claimed_state = [&]<bool Save>(std::bool_constant<Save>) {
    unsigned* at = words + (1 + SS) * threads;
    const bool same_pointers = visit_state<Save, 1>(pe, at);
    const bool same_mask = visit_state<Save, 1>(m, at);
    return visit_state<Save, 1>(o, at) & same_mask & same_pointers;
  };

  // Copies iteration n + ahead's tile into its slot, every thread its chunks; `as_claimed`: the
  // current scalars and base are the claim's (claimed_state).
  auto issue = [&](int ahead, bool as_claimed) {
    const int n = p.iteration + ahead;
    const long long index = static_cast<long long>(range->current) + static_cast<long long>(ahead) * range->step;
    if (ahead > 0 && !range->within(index)) return;
    const int slot = n % SS;
    if (!as_claimed) {
      group(slot) = not_copied;
      return;
    }
    PE ahead_pe = pe;
    MaskE ahead_mask = m;
    move_index(ahead_pe, static_cast<int>(index));
    move_index(ahead_mask, static_cast<int>(index));
    const Elem* base = pe.base.address;
    Elem* const to = stages + slot * slot_elements;
    // The whole tile on, its rows consecutive and 16-byte aligned (an interior tile of a matmul):
    // each chunk is one cp.async from the tile's plane, with no test of its own.
    if constexpr (runs::affine_v<Offsets> && !has_data_v<MaskE>) {
      const auto plane = runs::plane_of<S>(ahead_pe.offsets);
      if (plane.inside && plane.step[1] == 1 && (plane.step[0] * sizeof(Elem)) % 16 == 0 &&
          reinterpret_cast<std::uintptr_t>(base + plane.first) % 16 == 0 && runs::all_on_tile(ahead_mask)) {
        const unsigned first = static_cast<unsigned>(plane.first), row_step = static_cast<unsigned>(plane.step[0]);
        constexpr unsigned row_chunks = Cols / per_chunk, chunks = R * row_chunks;
        constexpr unsigned rows_per_round = threads / row_chunks;
        if constexpr (threads % row_chunks == 0 && chunks % threads == 0 && rows_per_round % Swz::period_rows == 0) {
          // Each round of the block's chunks lies whole swizzle periods below the last: this
          // thread's chunks share one column and one swizzle, so their addresses are its first
          // chunk's plus constants (computing each anew took about 11 instructions a chunk).
          const unsigned t = copying_thread();
          const unsigned row = t / row_chunks, col = t % row_chunks * per_chunk;
          Elem* const to_first = to + Swz::at(static_cast<int>(row), static_cast<int>(col));
          const Elem* const from_first = base + static_cast<int>(first + row * row_step + col);
          static_for<chunks / threads>([&](auto r) {
            constexpr int down = decltype(r)::value * static_cast<int>(rows_per_round);
            copy_async<16>(to_first + down * Swz::per_row, from_first + down * static_cast<int>(row_step));
          });
        } else {
          for_each_chunk_of_this_thread<S, per_chunk>([&](unsigned row, unsigned col) {
            copy_async<16>(to + Swz::at(static_cast<int>(row), static_cast<int>(col)),
                           base + static_cast<int>(first + row * row_step + col));
          });
        }
        commit_copies();
        group(slot) = p.committed++;
        return;
      }
    }
    copy_chunk_by_chunk<Elem, S, Swz>(ahead_pe, ahead_mask, o, base, to);
    commit_copies();
    group(slot) = p.committed++;
  };

  const void* tag = memory;
  if (p.iteration == 0 && p.tag[rank] == nullptr) {
    for (int earlier = 0; earlier < rank; ++earlier)
      if (p.tag[earlier] == tag) p.dead[rank] = true;
    if (p.dead[rank]) return plain();
    wait_all_copies();  // nothing of an enclosing range still lands in this buffer
    wgmma_wait_all();   // nor does a dot still read it (mma.cuh)
    __syncthreads();    // nor does any thread still read its words
    p.claim[rank] = owner = owner + 1u;  // the word's next value: no other claim holds it
    if (tid == 0) claimed_state(std::true_type{});
    p.tag[rank] = tag;
    __syncthreads();    // the claimed scalars, for every thread's copies
    for (int ahead = 0; ahead < SS - 1; ++ahead) issue(ahead, claimed_state(std::false_type{}));
    __syncthreads();    // the prologue's groups, for every thread's wait
  }
  if (p.tag[rank] != tag || owner != p.claim[rank]) {
    p.dead[rank] = true;
    return plain();
  }
  if (!p.reached_every_iteration(rank)) return plain();

  // This iteration's copies: wait for them (and for the later sites' copies of the iteration,
  // committed right after these once the pipeline is full), then one barrier, unless an earlier
  // site's barrier in this iteration already followed a wait that covered them. Either way a
  // barrier of this iteration precedes the copy into the slot iteration n - 1 read.
  const int slot = p.iteration % SS;
  const unsigned copied = group(slot);
  const bool have = copied != not_copied;
  const bool visible = !have || copied < p.visible_groups;
  if (p.barrier_iteration != p.iteration || !visible) {
    if (!visible) {
      // The groups numbered `copied` .. `through`, never past the newest (copied is below it).
      const int later_sites = p.staged_sites_before - staged_rank - 1;
      const unsigned newest = p.committed - 1;
      unsigned through = copied + static_cast<unsigned>(later_sites > 0 ? later_sites : 0);
      if (through > newest) through = newest;
      wait_copies(newest - through);
      p.visible_groups = through + 1;  // after the barrier below: complete in every thread, and seen
    }
    fence_shared_for_wgmma();  // the copies and stores this thread made, for a wgmma's reads
    wgmma_wait_all();          // the last iteration's dots are done with the slot refilled below
    __syncthreads();
    p.barrier_iteration = p.iteration;
  }
  // One comparison serves the copy and the read: nothing writes the claimed words in between.
  const bool as_claimed = claimed_state(std::false_type{});
  issue(SS - 1, as_claimed);
  if (!have || !as_claimed) return plain();

  // The registers, from the slot: each group of 8 is one 16-byte chunk of a row.
  constexpr int V = 1 << vector_bits<Elem, L>();
  static_assert(V == per_chunk, "tl (GPU backend): internal error: a staged load's vectors");
  Tile out(detail::uninitialized_t{});
  const Elem* const from = stages + slot * slot_elements;
  out.storage.staged = from;
  keep_the_load(out);
  const int flat0 = thread_flat<L>();
  static_for<L::registers / V>([&](auto g) {
    constexpr int first = decltype(g)::value * V;
    const int flat = flat_of<L, first>(flat0);
    const int row = flat / Cols, col = flat % Cols;
    const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(from + Swz::at(row, col));
    static_for<V>([&](auto j) { out.storage.regs[first + decltype(j)::value] = chunk.v[j]; });
  });
  return out;
}

}  // namespace cuda
}  // namespace TL_ABI
}  // namespace tl
