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

#include <cstring>
#include <functional>
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
  std::string run(dim3 block_index, dim3 grid_size, int thread_count, std::function<void()> fn) {
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
    // Phases: every thread runs until its next barrier or its end.
    for (;;) {
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
      int at_barrier = 0, finished = 0;
      for (int s : state) (s == 1 ? at_barrier : finished) += s != 0;
      if (finished == threads) break;
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

  void barrier() {
    const int me = running;
    state[me] = 1;
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

}  // namespace tl::emulation

#define threadIdx (::tl::emulation::current_thread)
#define blockIdx (::tl::emulation::this_block().index)
#define gridDim (::tl::emulation::this_block().grid)

inline void __syncthreads() { tl::emulation::this_block().barrier(); }

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
