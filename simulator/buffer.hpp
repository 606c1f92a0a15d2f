// Checked allocations: every buffer a simulated kernel receives, with its shadow state and counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "simulator/shadow.hpp"

namespace tl::sim {

struct buffer_counters {
  long long loads = 0;            // active lanes loaded
  long long stores = 0;           // active lanes stored
  long long load_bytes = 0;
  long long store_bytes = 0;
  long long masked_loads = 0;     // lanes a mask switched off
  long long masked_stores = 0;
  // Active lanes of atomics (tl::atomic_add and the others). Each also counts as one load and
  // one store above: an atomic reads the element and writes it back.
  long long atomics = 0;
  long long max_program_loads = 0;   // the most lanes any one program loaded
  long long max_program_stores = 0;
  int max_element_reads = 0;         // the most times any one element was loaded
  int max_program_element_reads = 0; // the most times one program loaded any one element
  int max_element_writes = 0;
};

// The loads or the stores of one buffer made by one line of the kernel (tl::load and tl::store
// carry their std::source_location), counted once per call with the call's active lanes, so that a
// budget report can say which lines load a buffer too often.
struct line_accesses {
  std::source_location where;
  bool stores = false;            // the stores of that line, else its loads
  long long lanes = 0;            // over the whole launch
  long long calls = 0;
  long long program_lanes = 0;    // this program's, folded into max_program_lanes at its end
  long long max_program_lanes = 0;
};

class buffer {
 public:
  // `data` is not owned; it must hold `count` elements of `elem_size` bytes.
  buffer(std::string name, std::vector<long long> shape, const char* dtype, std::size_t elem_size,
         void* data, bool initialized);
  // A buffer without data or shadow state, for a dry launch (launch_options::dry): only its
  // shape, against which every active lane's offset is still checked. It may be far larger than
  // memory allows.
  struct without_data_t {};
  buffer(std::string name, std::vector<long long> shape, const char* dtype, std::size_t elem_size,
         without_data_t);
  bool has_data() const { return data_ != nullptr || count_ == 0; }

  const std::string& name() const { return name_; }
  const std::vector<long long>& shape() const { return shape_; }
  const char* dtype() const { return dtype_; }
  long long count() const { return count_; }
  std::size_t elem_size() const { return elem_size_; }
  void* data() const { return data_; }

  // "x: float32 [4, 200], offsets 0 to 799"
  std::string describe() const;
  // Buffer coordinates of an element offset inside the buffer, like "[1, 37]".
  std::string coords_of(long long offset) const;

  shadow_state shadow;

  // Kept up to date by every load and store: max_element_reads, max_element_writes and
  // max_program_element_reads are running maxima of the shadow state's counts.
  buffer_counters counters;
  long long program_loads = 0;   // this program's, folded into counters at its end
  long long program_stores = 0;
  // By kernel line, in the order the lines first ran: one entry per line that loads or stores.
  std::vector<line_accesses> by_line;
  void count_line(const std::source_location& loc, bool stores, long long lanes);

  // Which programs updated each element with an atomic in this launch, for the race checks
  // between an atomic and a plain load or store (atomics alone never race). Empty until the
  // first atomic on the buffer, so buffers no atomic touches pay nothing.
  struct atomic_updaters {
    int last = -1;     // the program that made the last atomic on the element, or -1
    int earlier = -1;  // another program that made one before `last`, or -1
  };
  std::vector<atomic_updaters> atomic_state;
  bool atomics_used() const { return !atomic_state.empty(); }
  // Another program than `me` that updated element `offset` atomically in this launch, or -1.
  int atomic_by_other(long long offset, int me) const {
    if (atomic_state.empty()) return -1;
    const auto& a = atomic_state[static_cast<std::size_t>(offset)];
    return a.last == me ? a.earlier : a.last;
  }
  void note_atomic(long long offset, int me) {
    if (atomic_state.empty()) atomic_state.resize(static_cast<std::size_t>(count_));
    auto& a = atomic_state[static_cast<std::size_t>(offset)];
    if (a.last != me) {
      if (a.last >= 0) a.earlier = a.last;
      a.last = me;
    }
  }

  void end_program();
  long long unwritten_count() const;

 private:
  std::string name_;
  std::vector<long long> shape_;
  const char* dtype_;
  std::size_t elem_size_;
  void* data_;
  long long count_;
};

template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, int>) return "int32";
  else if constexpr (std::is_same_v<T, signed char>) return "int8";
  else if constexpr (std::is_same_v<T, unsigned char>) return "uint8";
  else if constexpr (std::is_same_v<T, long long>) return "int64";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else return "unknown";
}

}  // namespace tl::sim
