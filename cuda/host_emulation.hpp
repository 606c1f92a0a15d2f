// The CUDA backend on the host: the few CUDA pieces tl's GPU lowering uses (thread and block
// indices, __syncthreads, __shfl_xor_sync, static __shared__ memory), emulated so that g++ can
// build the very code nvcc builds and run it without a GPU. Compile with -DTL_EMULATED_GPU
// (tile/config.hpp then picks the CUDA backend); tests/gpu_emulation.cpp runs every GPU-capable
// solution this way, in CI, where there is no GPU.
//
// Each thread of a block is a fiber on the calling thread, run one after another up to the next
// barrier: deterministic, and fast enough for the puzzles' cases. A fiber starts on its own stack
// through ucontext; after that, switches go through _setjmp/_longjmp, which (unlike swapcontext)
// leave the signal mask alone and so cost no system call. A barrier that not
// every thread reaches (a thread that returned, or waits at another one) is reported, not hung:
// that is the "no barrier reachable by only some threads" rule, checked.
//
// Hopper's copy engine is modelled too (cuda/arch/tma.cuh): an mbarrier is a record of its
// arrivals, expected bytes and phase, kept beside the block; a tensor copy is recorded on its
// barrier and made only when a thread waits on that barrier, so a read of shared memory that no
// wait covers sees the old bytes, as it may on a GPU; a wait that nothing can complete (no thread
// left to arrive, no copy left to land) is reported, not hung.
//
// What this does not emulate: the memory model (a block runs in barrier-separated phases, so a
// race between threads of a block goes unseen; compute-sanitizer's racecheck covers that on a
// GPU), warp-synchronous timing, and the special instructions of tile/lanes.hpp (the portable
// C++ path runs instead of max.NaN, ex2.approx, div.full).
#pragma once

#if !defined(TL_EMULATED_GPU)
#error "cuda/host_emulation.hpp is for builds with TL_EMULATED_GPU"
#endif

#include <setjmp.h>
#include <ucontext.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
// One block runs at a time, so one static array per kernel is one per block, as on a GPU.
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace tl::emulation {

struct block;

// The thread being run, and its block.
inline thread_local block* current_block = nullptr;
inline thread_local dim3 current_thread{};

struct block {
  dim3 index, grid;
  int threads = 0;
  std::vector<ucontext_t> fibers;
  struct jump {
    jmp_buf at;
  };
  std::vector<jump> resume;  // where each started fiber continues
  std::vector<bool> started;
  ucontext_t scheduler{};
  jmp_buf back{};  // where the scheduler continues
  std::vector<int> state;  // 0 running or ready, 1 at a barrier, 2 finished
  std::vector<unsigned long long> exchange[2];  // shuffle slots, used alternately
  // cp.async: each thread's committed groups of copies (oldest first) and its open group. A copy
  // happens only when a wait completes its group, so a read of shared memory that a wait does not
  // cover sees the old bytes, as it may on a GPU.
  struct async_copy {
    void* to;
    const void* from;
    int bytes;
  };
  std::vector<std::vector<std::vector<async_copy>>> async_groups;
  std::vector<std::vector<async_copy>> async_open;
  // mbarriers by address: a tensor copy waits on its barrier until a thread waits there.
  struct tensor_copy {
    void* to;
    const void* map;
    int coords[5];
    int rank;
  };
  struct mbarrier {
    unsigned arrivals = 0;  // expected per phase
    unsigned pending = 0;   // arrivals still missing in this phase
    long long tx = 0;       // bytes expected and not yet landed
    unsigned phase = 0;
    std::vector<tensor_copy> copies;
  };
  std::map<const void*, mbarrier> barriers;
  // Bumped by whatever may let a waiting thread go on (an arrival, a copy landing): a pass of
  // the spinning threads with no such step is a wait that never completes.
  unsigned long long progress = 0;
  int exchange_round = 0;
  std::function<void()> body;
  std::string error;
  int running = -1;
  int cursor = 0;

  static constexpr std::size_t stack_bytes = 256 * 1024;

  static void entry(unsigned hi, unsigned lo) {
    auto* self = reinterpret_cast<block*>((static_cast<unsigned long long>(hi) << 32) | lo);
    self->body();
    self->state[self->running] = 2;
    _longjmp(self->back, 1);
  }

  // Runs `body` once per thread; returns what went wrong, or nothing.
  // Which run of a block this is, counting every block's: static shared memory outlives a run
  // here (on a GPU a launch finds garbage), so a value a run leaves there can be told from one of
  // this run (cuda/ring.cuh's busy word).
  static inline unsigned runs = 0;
  unsigned run_number = 0;

  std::string run(dim3 block_index, dim3 grid_size, int thread_count, std::function<void()> fn) {
    run_number = ++runs;
    index = block_index;
    grid = grid_size;
    threads = thread_count;
    body = std::move(fn);
    fibers.assign(threads, ucontext_t{});
    resume.resize(threads);
    started.assign(threads, false);
    state.assign(threads, 0);
    exchange[0].assign(threads, 0);
    exchange[1].assign(threads, 0);
    exchange_round = 0;
    async_groups.assign(threads, {});
    async_open.assign(threads, {});
    barriers.clear();
    // Stacks are kept for the next block: allocating and touching them again is the slow part.
    static thread_local std::vector<std::unique_ptr<char[]>> stacks;
    while (static_cast<int>(stacks.size()) < threads) stacks.emplace_back(new char[stack_bytes]);
    const auto self = reinterpret_cast<unsigned long long>(this);
    for (int t = 0; t < threads; ++t) {
      getcontext(&fibers[t]);
      fibers[t].uc_stack.ss_sp = stacks[t].get();
      fibers[t].uc_stack.ss_size = stack_bytes;
      fibers[t].uc_link = nullptr;
      makecontext(&fibers[t], reinterpret_cast<void (*)()>(&entry), 2,
                  static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffu));
    }
    block* outer = current_block;
    current_block = this;
    // Phases: every thread runs until its next barrier, a wait on an mbarrier that has not
    // completed (spinning), or its end; spinning threads run again while others make progress.
    for (;;) {
      const unsigned long long progress_before = progress;
      // The cursor is a member: the scheduler's locals do not survive a _longjmp back here.
      for (cursor = 0; cursor < threads;) {
        const int t = cursor++;
        if (state[t] != 0) continue;
        running = t;
        current_thread = dim3{static_cast<unsigned>(t), 0, 0};
        if (_setjmp(back) == 0) {
          if (started[t]) _longjmp(resume[t].at, 1);
          started[t] = true;
          swapcontext(&scheduler, &fibers[t]);
        }
      }
      if (!error.empty()) break;
      int at_barrier = 0, finished = 0, spinning = 0;
      for (int s : state) {
        at_barrier += s == 1;
        finished += s == 2;
        spinning += s == 3;
      }
      if (finished == threads) break;
      if (spinning > 0) {
        if (progress == progress_before) {
          error = "an mbarrier wait never completes: " + std::to_string(spinning) + " of the block's " +
                  std::to_string(threads) + " threads wait on a phase that no thread arrives on and no copy lands on";
          break;
        }
        for (int& s : state) s = s == 3 ? 0 : s;
        continue;
      }
      if (at_barrier != threads) {
        error = "a barrier was reached by " + std::to_string(at_barrier) + " of the block's " +
                std::to_string(threads) + " threads; the others returned";
        break;
      }
      for (int& s : state) s = 0;
    }
    current_block = outer;
    running = -1;
    return error;
  }

  void barrier() { suspend(1); }
  // What the running thread did wrong (an exception cannot leave a fiber): the block stops there
  // and run() returns it.
  [[noreturn]] void abandon(const std::string& what) {
    if (error.empty()) error = what;
    state[running] = 2;
    _longjmp(back, 1);
  }
  // A wait that could not complete yet: the thread runs again after the others have had a turn.
  void spin() { suspend(3); }

  void suspend(int why) {
    const int me = running;
    state[me] = why;
    if (_setjmp(resume[me].at) == 0) _longjmp(back, 1);
  }
};

inline block& this_block() {
  if (!current_block) throw std::logic_error("tl emulation: GPU code ran outside a block");
  return *current_block;
}

// cp.async.{ca,cg}.shared.global, commit_group, wait_group N and wait_all of the running thread.
inline void async_copy(void* to, const void* from, int bytes) {
  auto& b = this_block();
  b.async_open[b.running].push_back({to, from, bytes});
}
inline void async_commit() {
  auto& b = this_block();
  b.async_groups[b.running].push_back(std::move(b.async_open[b.running]));
  b.async_open[b.running].clear();
}
inline void async_wait(std::size_t pending) {
  auto& groups = this_block().async_groups[this_block().running];
  std::size_t done = 0;
  for (; groups.size() - done > pending; ++done)
    for (const auto& c : groups[done]) std::memcpy(c.to, c.from, static_cast<std::size_t>(c.bytes));
  groups.erase(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(done));
}

// mbarrier.init, .inval, arrive, arrive.expect_tx and try_wait.parity (cuda/arch/tma.cuh).
inline void mbarrier_init(const void* bar, unsigned arrivals) {
  auto& b = this_block();
  b.barriers[bar] = block::mbarrier{arrivals, arrivals, 0, 0, {}};
}
inline block::mbarrier& mbarrier_at(const void* bar, const char* what) {
  auto& b = this_block();
  const auto it = b.barriers.find(bar);
  if (it == b.barriers.end()) b.abandon(std::string(what) + " on an mbarrier that is not initialized");
  return it->second;
}
inline void mbarrier_inval(const void* bar) {
  if (!mbarrier_at(bar, "mbarrier.inval").copies.empty())
    this_block().abandon("mbarrier.inval with a copy still in flight on it (no thread waited for it)");
  this_block().barriers.erase(bar);
}
inline void mbarrier_complete_if_done(block::mbarrier& m) {
  if (m.pending != 0 || m.tx != 0) return;
  m.phase ^= 1;
  m.pending = m.arrivals;
}
inline void mbarrier_arrive_expect_tx(const void* bar, unsigned bytes) {
  auto& m = mbarrier_at(bar, "mbarrier.arrive.expect_tx");
  if (m.pending == 0) this_block().abandon("more arrivals on an mbarrier than it expects");
  m.tx += bytes;
  --m.pending;
  ++this_block().progress;
  mbarrier_complete_if_done(m);
}
inline void mbarrier_arrive(const void* bar) {
  auto& m = mbarrier_at(bar, "mbarrier.arrive");
  if (m.pending == 0) this_block().abandon("more arrivals on an mbarrier than it expects");
  --m.pending;
  ++this_block().progress;
  mbarrier_complete_if_done(m);
}
// Whether the phase of this parity has completed. A wait for the phase in progress lands the
// copies recorded on the barrier first (Perform makes each from its map); a wait for the parity
// of the phase before returns at once, as on a GPU, and lands nothing.
template <class Perform>
bool mbarrier_try_wait_parity(const void* bar, unsigned parity, Perform&& perform) {
  auto& m = mbarrier_at(bar, "mbarrier.try_wait.parity");
  if ((m.phase & 1u) != (parity & 1u)) return true;
  if (!m.copies.empty()) {
    auto copies = std::move(m.copies);
    m.copies.clear();
    for (const auto& c : copies) m.tx -= perform(c);
    ++this_block().progress;
    mbarrier_complete_if_done(m);
  }
  return (m.phase & 1u) != (parity & 1u);
}
inline void spin() { this_block().spin(); }

// cp.async.bulk.tensor: recorded on its barrier, made when a thread waits there.
inline void tma_load(void* to, const void* map, const int* coords, int rank, const void* bar) {
  block::tensor_copy c{to, map, {}, rank};
  for (int d = 0; d < rank; ++d) c.coords[d] = coords[d];
  mbarrier_at(bar, "cp.async.bulk.tensor").copies.push_back(c);
}

// A tensor map: the fields, as the copy engine would read them from the 128 bytes.
inline void tensor_map_build(void* staging, void* map, const void* fields, std::size_t bytes) {
  if (bytes > 128) this_block().abandon("a tensor map's fields pass 128 bytes");
  std::memset(staging, 0, 128);
  std::memcpy(staging, fields, bytes);
  std::memcpy(map, staging, 128);
}

}  // namespace tl::emulation

#define threadIdx (::tl::emulation::current_thread)
#define blockIdx (::tl::emulation::this_block().index)
#define gridDim (::tl::emulation::this_block().grid)

inline void __syncthreads() { tl::emulation::this_block().barrier(); }

// CUDA's atomics on 32-bit words, as GCC's builtins (compare-and-swap loops where GCC 12 has none) (tl's atomics, cuda/atomic.cuh, use these;
// the float add is the CAS loop that computes what the GPU's red.add.f32 does for one order).
inline int atomicAdd(int* at, int v) { return __atomic_fetch_add(at, v, __ATOMIC_RELAXED); }
inline int atomicMax(int* at, int v) {
  int old = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(at, &old, old < v ? v : old, false, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
inline int atomicMin(int* at, int v) {
  int old = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(at, &old, v < old ? v : old, false, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
inline int atomicExch(int* at, int v) { return __atomic_exchange_n(at, v, __ATOMIC_RELAXED); }
inline int atomicCAS(int* at, int expected, int desired) {
  __atomic_compare_exchange_n(at, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;  // the old value, whether or not it matched
}
inline float atomicExch(float* at, float v) {
  float old;
  __atomic_exchange(at, &v, &old, __ATOMIC_RELAXED);
  return old;
}
inline float atomicAdd(float* at, float v) {
  float old;
  __atomic_load(at, &old, __ATOMIC_RELAXED);
  float sum = old + v;
  while (!__atomic_compare_exchange(at, &old, &sum, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    sum = old + v;
  return old;
}

namespace tl::emulation {
// Every thread of a block calls each shuffle (kernel code is uniform), so a block-wide exchange
// at a barrier is a warp's. Two sets of slots, used in turn: a thread writes the next shuffle's
// slot only after every thread passed this shuffle's barrier, and read this one's. Each thread
// gets the value of the thread `source(me)` of its block.
template <class T, class Source>
T exchange(T value, Source source) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "tl emulation: shuffle of a large type");
  auto& b = this_block();
  const int me = b.running;
  auto& slots = b.exchange[b.exchange_round];
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  slots[me] = bits;
  b.barrier();
  if (me == 0) b.exchange_round ^= 1;  // thread 0 runs first in every phase
  bits = slots[source(me)];
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace tl::emulation

template <class T>
T __shfl_xor_sync(unsigned, T value, int lane_mask) {
  return tl::emulation::exchange(value, [&](int me) { return (me & ~31) | ((me & 31) ^ lane_mask); });
}

// Each lane reading the value of lane `src_lane` of its warp (ldmatrix and mma.sync are emulated
// with it: cuda/mma.cuh).
template <class T>
T __shfl_sync(unsigned, T value, int src_lane) {
  return tl::emulation::exchange(value, [&](int me) { return (me & ~31) | (src_lane & 31); });
}
