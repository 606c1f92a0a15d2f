// The access trace: which elements each program of a launch loaded and stored, which lanes a
// mask switched off and which active lanes fell outside their buffer. Off by default (checking
// never pays for it); `tilepuzzles show` and the HTML report turn it into maps. It is recorded
// by one hook at the top of tl::load and tl::store (simulator/trace_hook.hpp), apart from the
// access paths themselves, so it describes what the kernel asked for whichever path ran it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "simulator/buffer.hpp"

namespace tl::sim {

// What one lane did, as flags: a trace entry merges every lane of a program on one element.
enum traced : std::uint8_t {
  traced_load = 1,            // an active lane loaded the element
  traced_store = 2,           // an active lane stored it
  traced_masked_load = 4,     // a masked-off lane of a load pointed at it
  traced_masked_store = 8,    // a masked-off lane of a store pointed at it
  traced_outside_load = 16,   // an active lane of a load pointed outside the buffer (offset)
  traced_outside_store = 32,  // an active lane of a store pointed outside the buffer
};

class access_trace {
 public:
  struct entry {
    int program;       // linear id in the launch
    int buffer;        // index in the launch's buffers
    long long offset;  // element offset from the buffer's start (may be outside it)
    std::uint8_t what; // traced flags
  };

  // Called by the grid runner when a launch starts: forgets an earlier launch.
  void begin_launch(std::array<int, 3> grid, const std::vector<buffer*>& buffers);
  void record(const buffer& b, int program, long long offset, std::uint8_t what);

  // Every (program, buffer, offset) once, its flags merged, sorted in that order.
  const std::vector<entry>& entries();
  std::array<int, 3> grid() const { return grid_; }
  // Stopped recording after this many distinct entries (a launch far larger than a map shows).
  bool truncated() const { return truncated_; }
  static constexpr std::size_t max_entries = std::size_t{1} << 22;

 private:
  void compact();
  std::array<int, 3> grid_{1, 1, 1};
  std::vector<const buffer*> buffers_;
  std::vector<entry> entries_;
  std::size_t compacted_ = 0;
  bool truncated_ = false;
};

}  // namespace tl::sim
