// The GPU's prefetches in a pipelined tl::range, replayed to check what they read.
//
// On the GPU (cuda/pipeline.cuh) a load inside `tl::range(..., tl::num_stages<S>)` may be copied
// S' - 1 iterations ahead (S' = S, fewer for a large tile): its offsets and mask are evaluated
// with a later iteration's index, by a copy of them with the index leaves moved
// (tile/range_leaves.hpp), and the memory is read when the copy is issued. The simulator runs the
// loop as written; here it replays which loads the lowering copies ahead, and when, by the same
// rules (a site is a pipelined load's rank in the iteration and its type; the same type twice, a
// load first reached after the first iteration, one an iteration skipped, changed scalars or base
// pointers are loaded plainly there), and checks the two things the plain loop cannot show:
//   - a copy for an iteration the load may never run (a load inside an `if`) reads only what its
//     own mask allows: every lane it copies must be in bounds (out-of-bounds);
//   - the copy reads memory early: a store of the program between the copy and its iteration
//     must not change what it read, or the GPU gives the old values (race-read-write); not
//     for a load through tl::ptr<const T>, which nothing stores to.
// The copies' lanes are gathered in bulk, as the simulator's loads are. A plain `for` and
// one-stage ranges never come here (a compile-time test in the load).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <type_traits>
#include <tuple>
#include <vector>

#include "simulator/buffer.hpp"
#include "simulator/context.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/gather.hpp"
#include "tile/dtypes.hpp"
#include "tile/range_leaves.hpp"

namespace tl {
inline namespace TL_ABI {
namespace detail {
// Declared, not included: simulator/tile_storage.hpp's tl::layouts would clash with
// cuda/layout.cuh's in tests/gpu_layouts.cpp, which holds blocked_register_bits to the GPU's.
template <class S, class F>
inline void for_each_pos(F&& f);
}  // namespace detail
}  // namespace TL_ABI
}  // namespace tl

namespace tl::sim {

// The tile one copy read: for the iteration it was issued for, at which index.
struct prefetch_copy {
  int iteration = -1;  // -1: not copied, the load then loads plainly
  int issued_iteration = 0, issued_index = 0;
  // What it read, for a load through a pointer that may be stored to (through tl::ptr<const T>
  // nothing in the launch stores): runs of `run` elements, the first lane of each and where it
  // starts in the buffer, and their values when it was issued.
  long long run = 1;
  std::vector<long long> lanes, starts;
  std::vector<unsigned char> bytes;
};

struct prefetch_site {
  const void* tag = nullptr;  // the load's types (on the GPU, its stage buffer)
  bool dead = false;          // loaded plainly from now on
  int reached = 0;            // the last iteration that ran it
  std::vector<unsigned char> claimed;  // its scalars and base pointers when it was claimed
  std::vector<prefetch_copy> slots;
};

// What the simulator keeps per pipelined range (backend::pipeline<S>, S >= 2).
struct prefetch_sites {
  static constexpr int max_sites = 4;  // cuda::pipeline_sites's
  static constexpr int max_state_words = 16;
  int iteration = -1;
  int site = 0;
  std::array<prefetch_site, max_sites> sites;
};

// log2 of the registers per thread of the GPU's blocked layout (cuda/layout.cuh's blocked) of a
// tile with `row_bits` bits of rows and `col_bits` of its last dimension: `vector_bits` of the
// columns in registers; rows on lanes 2 to 4, one register, the warps, registers; the other
// columns on the free lanes, the free warps, registers. tests/gpu_layouts.cpp holds it to the
// GPU's.
constexpr int blocked_register_bits(int row_bits, int col_bits, int warp_bits, int vector_bits) {
  const int vector = std::min(col_bits, vector_bits);
  const int row_lanes = std::min(3, row_bits);
  const int row_warps = std::clamp(row_bits - 4, 0, warp_bits);
  const int row_registers = (row_bits > 3 ? 1 : 0) + std::max(0, row_bits - 4 - warp_bits);
  const int free_places = (5 - row_lanes) + (warp_bits - row_warps);
  return vector + row_registers + std::max(0, col_bits - vector - free_places);
}

// The stages a site gets on the GPU with `num_warps` warps: cuda::site_stages, for the blocked
// layout of a load of Elem (a pipelined load's offsets and mask hold no data tile, so that is
// its layout).
template <class Elem, class S>
int prefetch_stages(int stages, int state_words, int num_warps) {
  int warp_bits = 0;
  while ((1 << warp_bits) < num_warps) ++warp_bits;
  int bits[2] = {0, 0};  // rows, the last dimension
  for (int a = 0; a < S::rank; ++a)
    for (int d = S::dim(a); d > 1; d >>= 1) ++bits[a == S::rank - 1];
  const long long threads = 32LL * num_warps;
  const long long per_stage = (1LL << blocked_register_bits(bits[0], bits[1], warp_bits,
                                                            sizeof(Elem) == 2 ? 3 : 2)) *
                              threads * static_cast<long long>(sizeof(Elem));
  int s = stages;
  while (s > 1 && s * per_stage + (1 + s + state_words) * threads * 4 > max_stage_bytes) --s;
  return s;
}

// A 2-D float16/bfloat16 load that can be tl::dot's operand is copied on the GPU by the whole block
// into dot's swizzled shared memory instead (cuda::can_stage_operand): slots of the whole [R, C]
// tile, a budget of max_operand_stage_bytes (tile/range_leaves.hpp) and per thread an owner and a
// group word per slot, beside the claimed scalars of the pointers, mask and `other`.
inline constexpr int max_state_words = 16;  // cuda::pipeline_sites::max_state_words

template <class Elem, class S, class OtherE>
inline constexpr bool operand_site_candidate = [] {
  if constexpr (!is_half_v<Elem> || S::rank != 2) {
    return false;
  } else {
    return S::dim(1) >= 16 && S::dim(0) >= 8 && !has_data_v<OtherE> && index_stages<OtherE>() == 0;
  }
}();

// The stages such a site gets: cuda::operand_site_stages.
template <class S>
int operand_site_stages(int stages, int state_words, int num_warps) {
  const long long threads = 32LL * num_warps;
  const long long per_stage = static_cast<long long>(S::size) * 2;
  int s = stages;
  while (s > 1 && s * per_stage + ((1LL + s) * threads + state_words) * 4 > max_operand_stage_bytes) --s;
  return s;
}

// Each site's owner, as the GPU's stage buffer of its types holds it: a pipelined range nested in
// another with a load of the same types takes it over.
template <class Key>
const void*& prefetch_owner() {
  thread_local const void* owner = nullptr;
  return owner;
}

template <class... E>
std::vector<unsigned char> prefetch_state(const E&... e) {
  std::vector<unsigned char> bytes;
  auto field = [&](const auto& v) {
    const auto* b = reinterpret_cast<const unsigned char*>(&v);
    bytes.insert(bytes.end(), b, b + sizeof(v));
  };
  (for_each_state(e, field), ...);
  return bytes;
}

// The diagnostics (simulator/prefetch.cpp): a copy for index `copied` issued at index `issued`
// read `count` lanes out of bounds, or lanes a store changed before index `copied` used them.
struct prefetch_report {
  const buffer& buf;
  std::source_location loc;
  int range_stages, stages;  // the range's, and the ones this load gets (fewer for a large tile)
  int issued, copied, ahead, rank;
  std::vector<lane_report> lanes;
  long long count = 0;
  void add(long long lane, const std::vector<int>& coords, long long offset) {
    if (count++ < access_check::max_listed) lanes.push_back({lane, coords, offset, {}});
  }
};
[[noreturn]] void prefetch_out_of_bounds(const prefetch_report& r);
[[noreturn]] void prefetch_overwritten(const prefetch_report& r);

template <class S>
std::vector<int> lane_coords(long long lane) {
  std::vector<int> c(S::rank);
  for (int a = S::rank - 1; a >= 0; --a) {
    c[a] = static_cast<int>(lane % S::dim(a));
    lane /= S::dim(a);
  }
  return c;
}

// Replays the GPU's prefetch rules for one pipelined load, after the simulator has loaded it.
template <class Elem, class S, class PE, class MaskE, class OtherE>
void replay_prefetch(const PE& pe, const MaskE& m, const buffer& buf,
                     const std::source_location& loc) {
  using Offsets = typename PE::offsets_type;
  constexpr int St = index_stages<Offsets>();
  constexpr int words = state_words<PE>() + state_words<MaskE>();
  constexpr int operand_words = words + state_words<OtherE>();
  const int warps = current_context().num_warps;
  // An operand site where its stages reach 2 (cuda/backend.cuh's choice), else a per-thread one.
  int stages = 0;
  if constexpr (operand_site_candidate<Elem, S, OtherE> && operand_words <= max_state_words)
    stages = operand_site_stages<S>(St, operand_words, warps);
  if (stages < 2) stages = prefetch_stages<Elem, S>(St, words, warps);
  if (stages < 2) return;
  range_state<St>* range = nullptr;
  bool several = false;
  find_range<St>(pe.offsets, range, several);
  find_range<St>(m, range, several);
  prefetch_sites& p = range->pipeline.sites;
  const int rank = p.site++;
  if (several || rank >= p.max_sites || p.sites[rank].dead) return;
  prefetch_site& site = p.sites[rank];
  const void*& owner = prefetch_owner<std::tuple<PE, MaskE, OtherE, S, Elem>>();
  const void* const tag = &owner;
  const void* const me = &p;
  const Elem* data = static_cast<const Elem*>(buf.data());
  using OffS = shape_of_t<Offsets>;
  using MaskS = shape_of_t<MaskE>;

  // The copy of iteration `iteration + ahead`, as the GPU issues it now: its lanes evaluated
  // in bulk, one by one only to report lanes outside the buffer.
  auto issue = [&](int ahead) {
    const long long index = static_cast<long long>(range->current) + static_cast<long long>(ahead) * range->step;
    if (ahead > 0 && !range->within(index)) return;
    prefetch_copy& copy = site.slots[(p.iteration + ahead) % stages];
    copy.iteration = -1;
    if (prefetch_state(pe, m) != site.claimed) return;
    PE ahead_pe = pe;
    MaskE ahead_mask = m;
    move_index(ahead_pe, static_cast<int>(index));
    move_index(ahead_mask, static_cast<int>(index));
    tl::detail::tile_access<S> access;
    bool in_bounds = false;
    try {
      in_bounds = tl::detail::gather(ahead_pe, ahead_mask, buf, access);
    } catch (const kernel_error&) {
    }
    if (!in_bounds) {
      prefetch_report outside{buf, loc, St, stages, range->current, static_cast<int>(index), ahead, S::rank, {}};
      tl::detail::for_each_pos<S>([&](const pos<S::rank>& q, long long i) {
        if (!ahead_mask.eval(broadcast_pos<MaskS, S>(q))) return;
        const long long off = pe.base.address.offset + ahead_pe.offsets.eval(broadcast_pos<OffS, S>(q));
        if (off < 0 || off >= buf.count()) outside.add(i, lane_coords<S>(i), off);
      });
      if (outside.count) prefetch_out_of_bounds(outside);
      return;  // an evaluation the bulk path gave up on: nothing to compare
    }
    copy.iteration = p.iteration + ahead;
    copy.issued_iteration = p.iteration;
    copy.issued_index = range->current;
    if constexpr (!std::is_const_v<typename PE::pointer_type::element_type>) {
      copy.lanes.clear();
      copy.starts.clear();
      if (access.whole_rows) {
        copy.run = access.row;
        for (long long r = 0; r < access.rows; ++r) {
          copy.lanes.push_back(r * access.row);
          copy.starts.push_back(access.starts[r]);
        }
      } else {
        copy.run = 1;
        for (long long i = 0; i < access.lanes; ++i)
          if (access.on[i]) {
            copy.lanes.push_back(i);
            copy.starts.push_back(access.offset[i]);
          }
      }
      const std::size_t bytes = static_cast<std::size_t>(copy.run) * sizeof(Elem);
      copy.bytes.resize(copy.starts.size() * bytes);
      for (std::size_t j = 0; j < copy.starts.size(); ++j)
        std::memcpy(copy.bytes.data() + j * bytes, data + copy.starts[j], bytes);
    }
  };

  if (p.iteration == 0 && site.tag == nullptr) {
    for (int earlier = 0; earlier < rank; ++earlier)
      if (p.sites[earlier].tag == tag) site.dead = true;
    if (site.dead) return;
    owner = me;
    site.claimed = prefetch_state(pe, m);
    site.tag = tag;
    site.slots.assign(stages, {});
    for (int ahead = 0; ahead < stages - 1; ++ahead) issue(ahead);
  }
  if (site.tag != tag || owner != me || (p.iteration != 0 && site.reached != p.iteration - 1)) {
    site.dead = true;
    return;
  }
  site.reached = p.iteration;
  issue(stages - 1);
  const prefetch_copy& copy = site.slots[p.iteration % stages];
  if (copy.iteration != p.iteration || prefetch_state(pe, m) != site.claimed) return;
  // What the copy read against memory now (the simulator's load just read it): the GPU reads
  // every lane the mask turns on from the copy.
  if constexpr (!std::is_const_v<typename PE::pointer_type::element_type>) {
    prefetch_report changed{buf, loc, St, stages, copy.issued_index, range->current,
                            copy.iteration - copy.issued_iteration, S::rank, {}};
    const std::size_t bytes = static_cast<std::size_t>(copy.run) * sizeof(Elem);
    for (std::size_t j = 0; j < copy.starts.size(); ++j) {
      const unsigned char* then = copy.bytes.data() + j * bytes;
      if (std::memcmp(data + copy.starts[j], then, bytes) == 0) continue;
      for (long long c = 0; c < copy.run; ++c)
        if (std::memcmp(data + copy.starts[j] + c, then + c * sizeof(Elem), sizeof(Elem)) != 0)
          changed.add(copy.lanes[j] + c, lane_coords<S>(copy.lanes[j] + c), copy.starts[j] + c);
    }
    if (changed.count) prefetch_overwritten(changed);
  }
}

}  // namespace tl::sim

namespace tl {
inline namespace TL_ABI {
namespace backend {

// A pipelined tl::range runs as the plain loop it reads as, replaying which of its loads the GPU
// copies ahead to check those copies (replay_prefetch, above); a plain one keeps nothing.
template <int Stages>
struct pipeline {
  sim::prefetch_sites sites;
  template <class State>
  void begin_iteration(State&) {
    ++sites.iteration;
    sites.site = 0;
  }
};
template <>
struct pipeline<1> {
  template <class State>
  void begin_iteration(State&) {}
};

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
