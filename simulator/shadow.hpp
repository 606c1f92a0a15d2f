// The shadow state of a checked buffer: for every element, who wrote it and who read it, and how
// often, as the simulator's checks and counters need it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tl::sim {

// Who last wrote an element.
inline constexpr int written_by_host = -2;  // an input, set before the launch
inline constexpr int never_written = -1;    // poison: outputs start this way, never as zero
inline constexpr int nobody = -1;           // no program has read the element yet

// Saturating per-element counts stop here.
inline constexpr std::uint16_t count_limit = 0xffff;

// The shadow state of a buffer's elements: who wrote and read each one, and how often.
//
// Tiles load and store runs of consecutive elements, and the elements of a run mostly share one
// state. So the state is kept per chunk of consecutive elements while all of them share it, and
// per element only in chunks where they differ ("split" chunks: a run covered part of the chunk,
// or a lane touched a single element). A whole chunk then costs one update instead of one per
// element, and the state of a large tensor fits in the caches. A chunk is 16, 32 or 64 elements:
// the largest that the buffer's first access aligns to (a tile row of 64 is one chunk).
// shadow[i] is element i's state, wherever it lives.
class shadow_state {
 public:
  static constexpr int smallest_chunk_shift = 4, largest_chunk_shift = 6;

  explicit shadow_state(long long count, int initial_writer);
  shadow_state(const shadow_state& other);
  shadow_state(shadow_state&& other) noexcept;
  shadow_state& operator=(shadow_state other) noexcept;
  ~shadow_state();

  long long size() const { return count_; }
  long long chunks() const { return chunks_; }
  long long chunk() const { return 1LL << shift_; }

  // One element's state.
  struct element {
    int writer;          // program that last wrote it, or written_by_host/never_written
    int reader;          // program that last read it, or nobody
    int earlier_reader;  // another program that read it before `reader`, or nobody
    std::uint16_t reads;          // saturating load count
    std::uint16_t program_reads;  // loads by the program in `reader`, saturating
    std::uint16_t writes;         // saturating store count
  };
  element operator[](long long i) const;
  long long count_written_by(int writer) const;

  // The state as arrays, per chunk or per element: field[i] belongs to chunk or element i.
  struct fields {
    int* writer = nullptr;
    int* reader = nullptr;
    int* earlier_reader = nullptr;
    std::uint16_t* reads = nullptr;
    std::uint16_t* program_reads = nullptr;
    std::uint16_t* writes = nullptr;
  };

  // Loads and stores of `rows` runs of n consecutive elements, the r-th starting at starts[r],
  // applied in order (a run of 1 is a single lane). readable/writable say whether the program
  // `me` may load/store all of them without a diagnostic; read/write record the accesses, with
  // the same effect as doing it element by element, lane after lane.
  // The maxima are raised to the largest count any of these accesses left behind.
  bool readable(const long long* starts, long long rows, long long n, int me);
  bool writable(const long long* starts, long long rows, long long n, int me);
  void read(const long long* starts, long long rows, long long n, int me, int& max_reads,
            int& max_program_reads);
  void write(const long long* starts, long long rows, long long n, int me, int& max_writes);

 private:
  bool is_split(long long c) const { return split_[c] != 0; }
  // Before the first access: the chunk size its runs align to.
  void adapt(const long long* starts, long long rows, long long n);
  void lay_out_chunks(int shift);
  void split(long long c);
  void split_partial_chunks(long long start, long long n);
  template <class F>
  void for_pieces(long long start, long long n, F&& piece) const;
  void free_blocks();

  // Runs that start on a chunk and end on one (or at the end), while no chunk is split: each run
  // is then a range of whole chunks, with no cutting to do.
  bool aligned(const long long* starts, long long rows, long long n) const;

  long long count_ = 0;
  int shift_ = smallest_chunk_shift;  // a chunk is 1 << shift_ elements
  long long chunks_ = 0;
  bool accessed_ = false;
  int initial_writer_ = never_written;
  long long split_chunks_ = 0;   // how many chunks are split
  bool written_by_programs_ = false;
  fields chunk_state_;
  std::uint8_t* split_ = nullptr;
  fields element_state_;  // allocated on the first split
  std::byte* chunk_block_ = nullptr;
  std::size_t chunk_bytes_ = 0;
  std::byte* element_block_ = nullptr;
  std::size_t element_bytes_ = 0;
};

}  // namespace tl::sim
