#include "simulator/shadow.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <tuple>
#include <utility>
#include <vector>

namespace tl::sim {

namespace {

constexpr std::size_t alignment = 64;

std::size_t rounded(std::size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; }

// Blocks of shadow state that are gone, kept for the next launch's buffers. The checker makes
// fresh buffers for every launch; for a large tensor a fresh allocation comes from the kernel
// page by page, and its page faults cost more than the launch's checks.
class block_cache {
 public:
  std::pair<std::byte*, std::size_t> take(std::size_t bytes) {
    bytes = std::max(rounded(bytes), alignment);
    {
      std::lock_guard<std::mutex> hold(mutex_);
      auto best = blocks_.end();
      for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
        if (it->second >= bytes && (best == blocks_.end() || it->second < best->second)) best = it;
      if (best != blocks_.end()) {
        auto b = *best;
        blocks_.erase(best);
        return b;
      }
    }
    void* p = std::aligned_alloc(alignment, bytes);
    if (!p) throw std::bad_alloc();
    return {static_cast<std::byte*>(p), bytes};
  }
  void give_back(std::byte* block, std::size_t bytes) {
    std::lock_guard<std::mutex> hold(mutex_);
    blocks_.emplace_back(block, bytes);
    if (blocks_.size() > max_blocks) {
      // Keep the most recent ones: the next launch most likely looks like the last.
      std::free(blocks_.front().first);
      blocks_.erase(blocks_.begin());
    }
  }

 private:
  static constexpr std::size_t max_blocks = 16;
  std::mutex mutex_;
  std::vector<std::pair<std::byte*, std::size_t>> blocks_;
};

// Never destroyed, so that a buffer destroyed during the program's exit can still give back.
block_cache& cache() {
  static block_cache* c = new block_cache;
  return *c;
}

// The arrays of `fields` for n entries, one after another in `block`, each on a cache line;
// with `flags`, n bytes after them.
std::size_t fields_bytes(long long n, bool flags) {
  const auto m = static_cast<std::size_t>(n);
  return 3 * rounded(m * sizeof(int)) + 3 * rounded(m * sizeof(std::uint16_t)) +
         (flags ? rounded(m) : 0);
}
shadow_state::fields fields_in(std::byte* block, long long n) {
  const auto m = static_cast<std::size_t>(n);
  shadow_state::fields f;
  std::byte* p = block;
  auto take = [&](std::size_t bytes) {
    std::byte* at = p;
    p += rounded(bytes);
    return at;
  };
  f.writer = reinterpret_cast<int*>(take(m * sizeof(int)));
  f.reader = reinterpret_cast<int*>(take(m * sizeof(int)));
  f.earlier_reader = reinterpret_cast<int*>(take(m * sizeof(int)));
  f.reads = reinterpret_cast<std::uint16_t*>(take(m * sizeof(std::uint16_t)));
  f.program_reads = reinterpret_cast<std::uint16_t*>(take(m * sizeof(std::uint16_t)));
  f.writes = reinterpret_cast<std::uint16_t*>(take(m * sizeof(std::uint16_t)));
  return f;
}
std::uint8_t* flags_in(std::byte* block, long long n) {
  const auto m = static_cast<std::size_t>(n);
  return reinterpret_cast<std::uint8_t*>(block + 3 * rounded(m * sizeof(int)) +
                                         3 * rounded(m * sizeof(std::uint16_t)));
}

// What one access does to the state of entries lo..hi-1 of `f`, chunks or elements alike: the
// steps of the lane-by-lane load and store, written so the compiler vectorizes them.
[[gnu::always_inline]] inline bool range_readable(const shadow_state::fields& f, long long lo, long long hi, int me) {
  bool bad = false;
  for (long long i = lo; i < hi; ++i) {
    const int w = f.writer[i];
    bad |= (w == never_written) | ((w >= 0) & (w != me));
  }
  return !bad;
}

[[gnu::always_inline]] inline bool range_writable(const shadow_state::fields& f, long long lo, long long hi, int me) {
  bool bad = false;
  for (long long i = lo; i < hi; ++i) {
    const int w = f.writer[i];
    // The last reader, or when that is this program, another program that read it before.
    const int r = f.reader[i] == me ? f.earlier_reader[i] : f.reader[i];
    bad |= ((w >= 0) & (w != me)) | ((r >= 0) & (r != me));
  }
  return !bad;
}

[[gnu::always_inline]] inline void range_read(const shadow_state::fields& f, long long lo, long long hi, int me,
                unsigned& most_reads, unsigned& most_program_reads) {
  for (long long i = lo; i < hi; ++i) {
    const int r = f.reader[i];
    const bool other = r != me;
    // Another program read it first: it becomes the earlier reader, for the race check in store.
    f.earlier_reader[i] = (other & (r >= 0)) ? r : f.earlier_reader[i];
    f.reader[i] = me;
    unsigned p = other ? 0u : f.program_reads[i];
    p += p != count_limit;
    f.program_reads[i] = static_cast<std::uint16_t>(p);
    unsigned q = f.reads[i];
    q += q != count_limit;
    f.reads[i] = static_cast<std::uint16_t>(q);
    most_program_reads = std::max(most_program_reads, p);
    most_reads = std::max(most_reads, q);
  }
}

[[gnu::always_inline]] inline void range_write(const shadow_state::fields& f, long long lo, long long hi, int me,
                 unsigned& most_writes) {
  for (long long i = lo; i < hi; ++i) {
    f.writer[i] = me;
    unsigned w = f.writes[i];
    w += w != count_limit;
    f.writes[i] = static_cast<std::uint16_t>(w);
    most_writes = std::max(most_writes, w);
  }
}

}  // namespace

shadow_state::shadow_state(long long count, int initial_writer)
    : count_(count), initial_writer_(initial_writer) {
  lay_out_chunks(smallest_chunk_shift);
}

// Chunk headers for chunks of 1 << shift elements, every chunk in the initial state.
void shadow_state::lay_out_chunks(int shift) {
  if (chunk_block_) cache().give_back(chunk_block_, chunk_bytes_);
  shift_ = shift;
  chunks_ = (count_ + (1LL << shift) - 1) >> shift;
  std::tie(chunk_block_, chunk_bytes_) = cache().take(fields_bytes(chunks_, true));
  chunk_state_ = fields_in(chunk_block_, chunks_);
  split_ = flags_in(chunk_block_, chunks_);
  const auto n = static_cast<std::size_t>(chunks_);
  std::fill_n(chunk_state_.writer, n, initial_writer_);
  std::fill_n(chunk_state_.reader, n, nobody);
  std::fill_n(chunk_state_.earlier_reader, n, nobody);
  std::fill_n(chunk_state_.reads, n, 0);
  std::fill_n(chunk_state_.program_reads, n, 0);
  std::fill_n(chunk_state_.writes, n, 0);
  std::fill_n(split_, n, 0);
}

void shadow_state::adapt(const long long* starts, long long rows, long long n) {
  if (rows == 0 || n == 0) return;  // no element yet: decide at the first access that has one
  accessed_ = true;
  int shift = largest_chunk_shift;
  for (; shift > smallest_chunk_shift; --shift) {
    const long long mask = (1LL << shift) - 1;
    bool fits = true;
    for (long long r = 0; r < rows; ++r)
      fits &= ((starts[r] & mask) == 0) & (((starts[r] + n) & mask) == 0 || starts[r] + n == count_);
    if (fits) break;
  }
  if (shift != shift_) lay_out_chunks(shift);
}

shadow_state::shadow_state(const shadow_state& other)
    : count_(other.count_), shift_(other.shift_), chunks_(other.chunks_),
      accessed_(other.accessed_), initial_writer_(other.initial_writer_),
      split_chunks_(other.split_chunks_), written_by_programs_(other.written_by_programs_) {
  std::tie(chunk_block_, chunk_bytes_) = cache().take(fields_bytes(chunks_, true));
  std::memcpy(chunk_block_, other.chunk_block_, fields_bytes(chunks_, true));
  chunk_state_ = fields_in(chunk_block_, chunks_);
  split_ = flags_in(chunk_block_, chunks_);
  if (other.element_block_) {
    std::tie(element_block_, element_bytes_) = cache().take(fields_bytes(count_, false));
    std::memcpy(element_block_, other.element_block_, fields_bytes(count_, false));
    element_state_ = fields_in(element_block_, count_);
  }
}

shadow_state::shadow_state(shadow_state&& other) noexcept
    : count_(other.count_), shift_(other.shift_), chunks_(other.chunks_),
      accessed_(other.accessed_), initial_writer_(other.initial_writer_),
      split_chunks_(other.split_chunks_), written_by_programs_(other.written_by_programs_),
      chunk_state_(other.chunk_state_),
      split_(other.split_), element_state_(other.element_state_),
      chunk_block_(other.chunk_block_), chunk_bytes_(other.chunk_bytes_),
      element_block_(other.element_block_), element_bytes_(other.element_bytes_) {
  other.chunk_block_ = nullptr;
  other.element_block_ = nullptr;
  other.count_ = other.chunks_ = 0;
}

shadow_state& shadow_state::operator=(shadow_state other) noexcept {
  std::swap(count_, other.count_);
  std::swap(shift_, other.shift_);
  std::swap(chunks_, other.chunks_);
  std::swap(accessed_, other.accessed_);
  std::swap(initial_writer_, other.initial_writer_);
  std::swap(split_chunks_, other.split_chunks_);
  std::swap(written_by_programs_, other.written_by_programs_);
  std::swap(chunk_state_, other.chunk_state_);
  std::swap(split_, other.split_);
  std::swap(element_state_, other.element_state_);
  std::swap(chunk_block_, other.chunk_block_);
  std::swap(chunk_bytes_, other.chunk_bytes_);
  std::swap(element_block_, other.element_block_);
  std::swap(element_bytes_, other.element_bytes_);
  return *this;
}

shadow_state::~shadow_state() { free_blocks(); }

void shadow_state::free_blocks() {
  if (chunk_block_) cache().give_back(chunk_block_, chunk_bytes_);
  if (element_block_) cache().give_back(element_block_, element_bytes_);
  chunk_block_ = element_block_ = nullptr;
}

void shadow_state::split(long long c) {
  if (!element_block_) {
    std::tie(element_block_, element_bytes_) = cache().take(fields_bytes(count_, false));
    element_state_ = fields_in(element_block_, count_);
  }
  const long long lo = c << shift_, hi = std::min(lo + chunk(), count_);
  std::fill(element_state_.writer + lo, element_state_.writer + hi, chunk_state_.writer[c]);
  std::fill(element_state_.reader + lo, element_state_.reader + hi, chunk_state_.reader[c]);
  std::fill(element_state_.earlier_reader + lo, element_state_.earlier_reader + hi,
            chunk_state_.earlier_reader[c]);
  std::fill(element_state_.reads + lo, element_state_.reads + hi, chunk_state_.reads[c]);
  std::fill(element_state_.program_reads + lo, element_state_.program_reads + hi,
            chunk_state_.program_reads[c]);
  std::fill(element_state_.writes + lo, element_state_.writes + hi, chunk_state_.writes[c]);
  split_[c] = 1;
  ++split_chunks_;
}

shadow_state::element shadow_state::operator[](long long i) const {
  const long long c = i >> shift_;
  const fields& f = is_split(c) ? element_state_ : chunk_state_;
  const long long at = is_split(c) ? i : c;
  return {f.writer[at], f.reader[at], f.earlier_reader[at], f.reads[at], f.program_reads[at],
          f.writes[at]};
}

long long shadow_state::count_written_by(int writer) const {
  long long n = 0;
  for (long long c = 0; c < chunks_; ++c) {
    const long long lo = c << shift_, hi = std::min(lo + chunk(), count_);
    if (is_split(c)) n += std::count(element_state_.writer + lo, element_state_.writer + hi, writer);
    else if (chunk_state_.writer[c] == writer) n += hi - lo;
  }
  return n;
}

// A run of elements is cut into pieces: consecutive whole chunks whose elements share their
// state, handled once per chunk, and the elements of split chunks. An update first splits the
// chunks the run covers only in part; a check reads them as they are.
template <class F>
void shadow_state::for_pieces(long long start, long long n, F&& piece) const {
  const long long end = start + n;
  long long s = start;
  while (s < end) {
    const long long c = s >> shift_;
    const long long chunk_end = std::min((c + 1) << shift_, count_);
    if (!is_split(c) && s == c << shift_ && chunk_end <= end) {
      // As many whole, unsplit chunks as follow.
      long long d = c + 1;
      while (d < chunks_ && !is_split(d) && std::min((d + 1) << shift_, count_) <= end) ++d;
      piece(c, d, true);
      s = std::min(d << shift_, count_);
    } else {
      // Part of a chunk: its elements, or when they share their state (only in a check), the
      // chunk itself.
      const long long to = std::min(end, chunk_end);
      if (is_split(c)) piece(s, to, false);
      else piece(c, c + 1, true);
      s = to;
    }
  }
}

void shadow_state::split_partial_chunks(long long start, long long n) {
  const long long end = start + n;
  const long long first = start >> shift_, last = (end - 1) >> shift_;
  if (!is_split(first) &&
      (start != first << shift_ || std::min((first + 1) << shift_, count_) > end))
    split(first);
  if (last != first && !is_split(last) && std::min((last + 1) << shift_, count_) > end)
    split(last);
}


bool shadow_state::aligned(const long long* starts, long long rows, long long n) const {
  if (split_chunks_ != 0) return false;
  const long long mask = chunk() - 1;
  bool ok = true;
  for (long long r = 0; r < rows; ++r) {
    const long long end = starts[r] + n;
    ok &= ((starts[r] & mask) == 0) & (((end & mask) == 0) | (end == count_));
  }
  return ok;
}

bool shadow_state::readable(const long long* starts, long long rows, long long n, int me) {
  if (!accessed_) adapt(starts, rows, n);
  // Nothing but the host wrote this buffer: every element was written, by nobody in the launch.
  if (initial_writer_ == written_by_host && !written_by_programs_) return true;
  bool ok = true;
  if (aligned(starts, rows, n)) {
    for (long long r = 0; r < rows; ++r) {
      const long long c = starts[r] >> shift_;
      ok &= range_readable(chunk_state_, c, c + ((n + chunk() - 1) >> shift_), me);
    }
    return ok;
  }
  for (long long r = 0; r < rows && ok; ++r) {
    for_pieces(starts[r], n, [&](long long lo, long long hi, bool whole_chunks) {
      ok &= whole_chunks ? range_readable(chunk_state_, lo, hi, me)
                         : range_readable(element_state_, lo, hi, me);
    });
  }
  return ok;
}

bool shadow_state::writable(const long long* starts, long long rows, long long n, int me) {
  if (!accessed_) adapt(starts, rows, n);
  bool ok = true;
  if (aligned(starts, rows, n)) {
    for (long long r = 0; r < rows; ++r) {
      const long long c = starts[r] >> shift_;
      ok &= range_writable(chunk_state_, c, c + ((n + chunk() - 1) >> shift_), me);
    }
    return ok;
  }
  for (long long r = 0; r < rows && ok; ++r) {
    for_pieces(starts[r], n, [&](long long lo, long long hi, bool whole_chunks) {
      ok &= whole_chunks ? range_writable(chunk_state_, lo, hi, me)
                         : range_writable(element_state_, lo, hi, me);
    });
  }
  return ok;
}

void shadow_state::read(const long long* starts, long long rows, long long n, int me,
                        int& max_reads, int& max_program_reads) {
  if (!accessed_) adapt(starts, rows, n);
  unsigned most_reads = 0, most_program_reads = 0;
  if (aligned(starts, rows, n)) {
    for (long long r = 0; r < rows; ++r) {
      const long long c = starts[r] >> shift_;
      range_read(chunk_state_, c, c + ((n + chunk() - 1) >> shift_), me, most_reads,
                 most_program_reads);
    }
  } else {
    for (long long r = 0; r < rows; ++r) {
      split_partial_chunks(starts[r], n);
      for_pieces(starts[r], n, [&](long long lo, long long hi, bool whole_chunks) {
        range_read(whole_chunks ? chunk_state_ : element_state_, lo, hi, me, most_reads,
                   most_program_reads);
      });
    }
  }
  max_reads = std::max(max_reads, static_cast<int>(most_reads));
  max_program_reads = std::max(max_program_reads, static_cast<int>(most_program_reads));
}

void shadow_state::write(const long long* starts, long long rows, long long n, int me,
                         int& max_writes) {
  if (!accessed_) adapt(starts, rows, n);
  written_by_programs_ = true;
  unsigned most_writes = 0;
  if (aligned(starts, rows, n)) {
    for (long long r = 0; r < rows; ++r) {
      const long long c = starts[r] >> shift_;
      range_write(chunk_state_, c, c + ((n + chunk() - 1) >> shift_), me, most_writes);
    }
  } else {
    for (long long r = 0; r < rows; ++r) {
      split_partial_chunks(starts[r], n);
      for_pieces(starts[r], n, [&](long long lo, long long hi, bool whole_chunks) {
        range_write(whole_chunks ? chunk_state_ : element_state_, lo, hi, me, most_writes);
      });
    }
  }
  max_writes = std::max(max_writes, static_cast<int>(most_writes));
}

}  // namespace tl::sim
