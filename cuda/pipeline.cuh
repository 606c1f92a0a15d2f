// The pipelined k-loop: a load inside `tl::range(..., tl::num_stages<S>)` whose pointer depends on
// the range's index is copied into shared memory with cp.async S - 1 iterations ahead, and read
// back from there when its iteration comes.
//
// The index of a range is a lazy leaf that holds the index and its range (tile/range.hpp), so a
// copy of the load's offsets and mask with the leaves moved to a later iteration's index are that
// iteration's (tile/range_leaves.hpp). The simulator replays these rules to check what the copies
// read (simulator/prefetch.hpp): keep the two in step. Each thread copies exactly the elements its
// registers will hold in the load's layout, into its own slots of a stage buffer (slot-major, then
// vector, then thread: the threads of a warp write and read consecutive 16-byte vectors), and reads
// back only what it copied: nothing is shared between threads, so the copies need
// cp.async.wait_group and no barrier.
//
//   first iteration   the site claims its stage buffer and copies iterations 0 .. S' - 2
//   every iteration   copy iteration n + S' - 1 (if it is one), wait for iteration n's copies,
//                     read them, and put `other` in the lanes the mask (evaluated now) switches off
//
// Which load is which ("site"): the rank of the pipelined load within the iteration and its
// type. A load of the same type as an earlier one in the same iteration (two identical
// expressions on two base pointers), a load that first appears after the first iteration (a
// branch), one an iteration skipped (from the next iteration that runs it on: the skipped one
// issued no copy), one whose rank now holds a load of another type, and one whose stage buffer another
// live range claimed (a pipelined range nested in one with an identical load) are loaded plainly.
// A prefetch uses the loop's scalars and base pointer as they are when it is issued: a site keeps
// those of its claim, copies ahead only while the current ones equal them, and reads a slot only
// if they still do; where they differ (a scalar or pointer that changes in the loop besides the
// index) it loads plainly. So every load gives the bits a plain loop gives.
//
// A site's stages S' are the range's S, fewer where its buffer (slots and bookkeeping) would pass
// max_stage_bytes (tile/range_leaves.hpp; the buffer is in the kernel's shared-memory arena,
// cuda/shared_arena.cuh); with fewer than 2 it is not pipelined.
//
// A 2-D float16/bfloat16 load that can be an operand of tl::dot does not come here: it is copied by
// the whole block into dot's own swizzled shared memory instead (cuda/operand_stages.cuh), which
// shares this file's index leaves, site ranks, claims and fallbacks. A load whose offsets or mask hold a data
// tile (computed from loaded values) cannot be evaluated ahead and is loaded plainly.
#pragma once

#include "cuda/runtime.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/arch/tma.cuh"
#include "cuda/evaluate.cuh"
#include "cuda/memory.cuh"
#include "cuda/runs.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/tile_storage.cuh"
#include "cuda/wgmma.cuh"
#include "cuda/front_hooks.cuh"
#include "tile/memory.hpp"
#include "tile/range.hpp"
#include "tile/range_leaves.hpp"

namespace tl {
inline namespace TL_ABI {
namespace cuda {

// ---------------------------------------------------------------------------------------------
// cp.async (sm_80 and later; plain copies before, and in the host emulation deferred to the wait)

template <int Bytes>
__device__ __forceinline__ void copy_async(void* to, const void* from) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "tl (GPU backend): cp.async moves 4, 8 or 16 bytes");
#if defined(TL_EMULATED_GPU)
  emulation::async_copy(to, from, Bytes);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(to));
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(at), "l"(from));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(at), "l"(from), "n"(Bytes));
#else
  std::memcpy(to, from, Bytes);
#endif
}

__device__ __forceinline__ void commit_copies() {
#if defined(TL_EMULATED_GPU)
  emulation::async_commit();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most `newer` committed groups are in flight (the groups committed after the one
// waited for).
__device__ __forceinline__ void wait_copies(unsigned newer) {
#if defined(TL_EMULATED_GPU)
  emulation::async_wait(newer);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (newer) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
  }
#else
  (void)newer;
#endif
}

__device__ __forceinline__ void wait_all_copies() {
  commit_copies();
  wait_copies(0);
}

// Writes (Save) or compares (!Save) the state words of `e` at `words`, `stride` apart (one
// thread's words in a buffer of every thread's), moving `words` past them.
template <bool Save, int Stride, class E>
__device__ __forceinline__ bool visit_state(const E& e, unsigned*& words) {
  bool same = true;
  for_each_state(e, [&](const auto& v) {
    constexpr int n = static_cast<int>((sizeof(v) + 3) / 4);
    unsigned here[n] = {};
    std::memcpy(here, &v, sizeof(v));
    for (int i = 0; i < n; ++i) {
      if constexpr (Save) words[i * Stride] = here[i];
      else same &= words[i * Stride] == here[i];  // no branch per word: the loop runs this each iteration
    }
    words += n * Stride;
  });
  return same;
}

// ---------------------------------------------------------------------------------------------

// What a ring site (cuda/ring.cuh) keeps in each thread, the same in every thread, in as few
// registers as it can (each one is taken from the accumulator's): where its buffer is (null until
// it is claimed: its barriers first, then its slots), which site it is (the low 32 bits of an
// address, which one kernel's statics never share), the claim's tensor map, the claim's other
// coordinate, the linked coordinate of its next copy, and in `state` its slots (bits 24-31), the
// slot of its next read (0-7) and of its next copy (8-15), the parity of the full barrier's phase
// the next read waits for (16), whether copies have come round to slots read before (17: then a
// copy waits for the slot's empty barrier first) and the parity of that barrier's phase (18).
struct ring_site {
  unsigned char* memory = nullptr;
  unsigned key = 0;
  const void* map = nullptr;
  int other = 0;
  int next_index = 0;
  unsigned state = 0;
  __device__ __forceinline__ int slots() const { return static_cast<int>(state >> 24); }
  __device__ __forceinline__ std::uint64_t* full() const { return reinterpret_cast<std::uint64_t*>(memory); }
};

// What a pipelined range keeps per thread (its sites' slots, groups and claimed scalars are in
// their stage buffers, in shared memory: local memory would miss the L1 that shared memory takes).
template <int Stages>
struct pipeline_sites {
  static constexpr int max_sites = 4;
  static constexpr int max_state_words = 16;
  int iteration = -1;
  int site = 0;
  unsigned committed = 0;  // cp.async groups this thread committed in the range
  // The operand sites (cuda/operand_stages.cuh): their count in this iteration and the last, the
  // iteration of the last barrier one of them placed, and how many groups (the first ones) are
  // complete in every thread before a barrier.
  int staged_site = 0;
  int staged_sites_before = 0;
  int barrier_iteration = -1;
  unsigned visible_groups = 0;
  const void* tag[max_sites] = {};
  // The value this range wrote to the owner word of each site's buffer when it claimed it: a
  // buffer another range claimed since (a nested range with loads of the same types) holds
  // another. A value, not the state's address, so that the state stays in registers.
  unsigned claim[max_sites] = {};
  bool dead[max_sites] = {};
  int reached[max_sites] = {};  // the last iteration that ran the site
  // The descriptor rings (cuda/ring.cuh): each site's state, and the last iteration in which a
  // dot of a ring's tile left its group in flight.
  ring_site ring[max_sites] = {};
  int ring_dot_iteration = -2;

  // Records that site `rank` ran this iteration. False (and the site dead from then on) where an
  // iteration skipped it (a load inside an `if`): that iteration issued no copy, so the slots no
  // longer hold the iterations they would be read for, and the site loads plainly.
  __device__ __forceinline__ bool reached_every_iteration(int rank) {
    if (iteration != 0 && reached[rank] != iteration - 1) {
      dead[rank] = true;
      return false;
    }
    reached[rank] = iteration;
    return true;
  }
};

// The end of a range with descriptor rings (cuda/ring.cuh): once every thread is past its last
// wait on their barriers, thread 0 invalidates them and frees each ring's buffer for the next
// range that claims it. Every issued copy has been waited for (a ring issues copies only for
// iterations of the range, and each iteration waits for its own).
template <int Stages>
__device__ __forceinline__ void ring_release(pipeline_sites<Stages>& p) {
  bool any = false;
  for (int r = 0; r < p.max_sites; ++r) any = any || p.ring[r].memory != nullptr;
  if (!any) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int r = 0; r < p.max_sites; ++r) {
      if (p.ring[r].memory == nullptr) continue;
      std::uint64_t* const barriers = p.ring[r].full();
      const int slots = p.ring[r].slots();
      for (int b = 0; b < 2 * slots; ++b) arch::mbarrier_inval(barriers + b);
      *reinterpret_cast<unsigned*>(barriers + 2 * slots) = 0;  // the busy word
    }
  }
}

// The name of one load site's stage buffer in the arena (cuda/shared_arena.cuh): its types.
template <class... Types>
struct pipeline_key;

template <class PE, class MaskE>
inline constexpr bool can_pipeline =
    !has_data_v<typename PE::offsets_type> && !has_data_v<MaskE> &&
    index_stages<typename PE::offsets_type>() >= 2 &&
    (index_stages<MaskE>() == 0 || index_stages<MaskE>() == index_stages<typename PE::offsets_type>()) &&
    state_words<PE>() + state_words<MaskE>() <= pipeline_sites<2>::max_state_words;

// Elements of one vector access of Elem in layout L, and the stages one site of it can have.
template <class Elem, class L>
inline constexpr int access_vector = 1 << vector_bits<Elem, L>();
template <class Elem, class L, int Stages, int StateWords>
inline constexpr int site_stages = [] {
  constexpr long long per_stage = static_cast<long long>(L::registers) * threads * sizeof(Elem);
  int s = Stages;
  while (s > 1 && s * per_stage + (1 + s + StateWords) * threads * 4LL > max_stage_bytes) --s;
  return s;
}();

template <class Elem, class S, bool has_other, class PE, class MaskE, class OtherE>
__device__ __forceinline__ auto pipelined_load(const PE& pe, const MaskE& m, const OtherE& o) {
  using Offsets = typename PE::offsets_type;
  using L = layouts::layout<result_layout_or<S, access_blocked_layout<S, Elem>, Offsets, MaskE, OtherE>()>;
  constexpr int St = index_stages<Offsets>();
  constexpr int SS = site_stages<Elem, L, St, state_words<PE>() + state_words<MaskE>()>;
  if constexpr (SS < 2) {
    return load<Elem, S, has_other>(pe, m, o);
  } else {
    range_state<St>* range = nullptr;
    bool several = false;
    find_range<St>(pe.offsets, range, several);
    find_range<St>(m, range, several);
    auto& p = range->pipeline.sites;
    const int rank = p.site++;
    if (several || rank >= p.max_sites || p.dead[rank]) return load<Elem, S, has_other>(pe, m, o);

    constexpr int V = access_vector<Elem, L>;
    constexpr int groups = L::registers / V;
    constexpr int slot_elements = L::registers * threads;
    // After the slots, each thread's words (word-major, so a warp's accesses are consecutive):
    // the owner, the cp.async group of each slot, and the scalars and base the site was claimed
    // with (state_words of the pointers, then of the mask).
    constexpr int state = state_words<PE>() + state_words<MaskE>();
    constexpr int words = 1 + SS + state;
    constexpr int bytes = SS * slot_elements * static_cast<int>(sizeof(Elem)) + words * threads * 4;
    // The site's stage buffer: its slots of every thread's registers, then the words.
    unsigned char* const memory = shared_region<pipeline_key<PE, MaskE, OtherE, S>, bytes>();
    Elem* const stages = reinterpret_cast<Elem*>(memory);
    const int tid = static_cast<int>(threadIdx.x);
    unsigned* const mine = reinterpret_cast<unsigned*>(memory + SS * slot_elements * sizeof(Elem)) + tid;
    unsigned& owner = mine[0];
    auto group = [&](int slot) -> unsigned& { return mine[(1 + slot) * threads]; };
    constexpr unsigned not_copied = 0xffffffffu;
    // Whether the current pointers and mask have the scalars and base of the claim (or saves them).
    auto claimed_state = [&]<bool Save>(std::bool_constant<Save>) {
      unsigned* at = mine + (1 + SS) * threads;
      const bool same_pointers = visit_state<Save, threads>(pe, at);
      return visit_state<Save, threads>(m, at) && same_pointers;
    };
    const auto thread = thread_coords<S, L>();
    using OffS = shape_of_t<Offsets>;
    using MaskS = shape_of_t<MaskE>;
    using OtherS = shape_of_t<OtherE>;

    // Copies iteration n + ahead's tile into its slot where the scalars and base are still the
    // claim's (`as_claimed`: claimed_state), and the copy is then right for the claim's.
    auto issue = [&](int ahead, bool as_claimed) {
      const int n = p.iteration + ahead;
      const long long index = static_cast<long long>(range->current) + static_cast<long long>(ahead) * range->step;
      if (ahead > 0 && !range->within(index)) return;
      const int slot = n % SS;
#if defined(__CUDA_ARCH__)
      asm volatile("" ::: "memory");  // this slot's reads, an iteration ago, are done
#endif
      if (!as_claimed) {
        group(slot) = not_copied;
        return;
      }
      PE ahead_pe = pe;
      MaskE ahead_mask = m;
      move_index(ahead_pe, static_cast<int>(index));
      move_index(ahead_mask, static_cast<int>(index));
      const Elem* base = pe.base.address;
      Elem* to = stages + slot * slot_elements;
      static_for<groups>([&](auto g) {
        Elem* unit = to + (g * threads + tid) * V;
        constexpr int unit_bytes = V * static_cast<int>(sizeof(Elem));
        constexpr bool by_runs = (unit_bytes == 4 || unit_bytes == 8 || unit_bytes == 16) && V > 1 &&
                                 runs::applies<S, V, Offsets, MaskE>;
        if constexpr (by_runs) {
          int first;
          if (whole_run<S, V>(ahead_pe.offsets, ahead_mask, position<S, L, g * V>(thread), first) &&
              reinterpret_cast<std::uintptr_t>(base + first) % unit_bytes == 0) {
            copy_async<unit_bytes>(unit, base + first);
            return;
          }
        }
        bool on[V];
        int offset[V];
        static_for<V>([&](auto j) {
          const auto q = position<S, L, g * V + j>(thread);
          on[j] = ahead_mask.eval(broadcast_pos<MaskS, S>(q));
          offset[j] = static_cast<int>(ahead_pe.offsets.eval(broadcast_pos<OffS, S>(q)));
        });
        if constexpr (!by_runs && (unit_bytes == 4 || unit_bytes == 8 || unit_bytes == 16)) {
          bool whole = true;
          static_for<V>([&](auto j) { whole = whole && on[j] && offset[j] == offset[0] + j; });
          whole = whole && reinterpret_cast<std::uintptr_t>(base + offset[0]) % unit_bytes == 0;
          if (whole) {
            copy_async<unit_bytes>(unit, base + offset[0]);
            return;
          }
        }
        static_for<V>([&](auto j) {
          if (on[j]) {
            if constexpr (sizeof(Elem) == 4 || sizeof(Elem) == 8)
              copy_async<static_cast<int>(sizeof(Elem))>(unit + j, base + offset[j]);
            else
              unit[j] = base[offset[j]];
          }
        });
      });
      commit_copies();
      group(slot) = p.committed++;
    };

    const void* tag = memory;
    if (p.iteration == 0 && p.tag[rank] == nullptr) {
      for (int earlier = 0; earlier < rank; ++earlier)
        if (p.tag[earlier] == tag) p.dead[rank] = true;
      if (p.dead[rank]) return load<Elem, S, has_other>(pe, m, o);
      wait_all_copies();  // nothing of an enclosing range still lands in this buffer
      p.claim[rank] = owner = owner + 1u;  // the word's next value: no other claim holds it
      claimed_state(std::true_type{});
      p.tag[rank] = tag;
      for (int ahead = 0; ahead < SS - 1; ++ahead) issue(ahead, true);
    }
    if (p.tag[rank] != tag || owner != p.claim[rank]) {
      p.dead[rank] = true;
      return load<Elem, S, has_other>(pe, m, o);
    }
    if (!p.reached_every_iteration(rank)) return load<Elem, S, has_other>(pe, m, o);
    // One comparison serves the copy and the read: nothing writes the claimed words in between.
    const bool as_claimed = claimed_state(std::false_type{});
    issue(SS - 1, as_claimed);
    const int slot = p.iteration % SS;
    const unsigned copied = group(slot);
    if (copied == not_copied) return load<Elem, S, has_other>(pe, m, o);
    // Waited for even where the slot goes unread: two copies into one slot not separated by a wait
    // may land in either order (racecheck reports it).
    wait_copies(p.committed - 1 - copied);
    if (!as_claimed) return load<Elem, S, has_other>(pe, m, o);

    const auto other = bind_for<L, S>(o);
    basic_tile<Elem, S, L> out(detail::uninitialized_t{});
    const Elem* from = stages + slot * slot_elements;
    static_for<groups>([&](auto g) {
      const auto chunk = *reinterpret_cast<const vector<Elem, V>*>(from + (g * threads + tid) * V);
      static_for<V>([&](auto j) {
        constexpr int k = g * V + j;
        const auto q = position<S, L, k>(thread);
        out.storage.regs[k] = m.eval(broadcast_pos<MaskS, S>(q))
                                  ? chunk.v[j]
                                  : op::cast_to<Elem>{}(other.eval(broadcast_pos<OtherS, S>(q)));
      });
    });
    return out;
  }
}

}  // namespace cuda

namespace backend {

// A plain range keeps nothing; a pipelined one the sites of its loads (cuda/pipeline.cuh).
template <int Stages>
struct pipeline {
  cuda::pipeline_sites<Stages> sites;
  template <class State>
  __device__ __forceinline__ void begin_iteration(State&) {
    ++sites.iteration;
    sites.site = 0;
    sites.staged_sites_before = sites.staged_site;
    sites.staged_site = 0;
  }
  __device__ __forceinline__ ~pipeline() {
    if (sites.committed != 0) cuda::wait_all_copies();  // no copy lands after the range
    cuda::wgmma_wait_all();  // nor does a dot's group run on (cuda/mma.cuh)
    cuda::ring_release(sites);  // nor is a ring's barrier in use (cuda/ring.cuh)
  }
};
template <>
struct pipeline<1> {
  template <class State>
  __device__ __forceinline__ void begin_iteration(State&) {}
};

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
