#include "simulator/trace.hpp"

#include <algorithm>
#include <tuple>

namespace tl::sim {

void access_trace::begin_launch(std::array<int, 3> grid, const std::vector<buffer*>& buffers) {
  grid_ = grid;
  buffers_.assign(buffers.begin(), buffers.end());
  entries_.clear();
  compacted_ = 0;
  truncated_ = false;
}

void access_trace::record(const buffer& b, int program, long long offset, std::uint8_t what) {
  if (truncated_) return;
  const auto it = std::find(buffers_.begin(), buffers_.end(), &b);
  if (it == buffers_.end()) return;  // a buffer the launch was not given
  entries_.push_back({program, static_cast<int>(it - buffers_.begin()), offset, what});
  // Merge now and then, so a loop over one tile does not grow the trace without end.
  if (entries_.size() >= 2 * compacted_ + 65536) {
    compact();
    if (entries_.size() > max_entries) {
      entries_.resize(max_entries);
      truncated_ = true;
    }
  }
}

void access_trace::compact() {
  const auto key = [](const entry& e) { return std::tie(e.program, e.buffer, e.offset); };
  std::stable_sort(entries_.begin(), entries_.end(),
                   [&](const entry& a, const entry& b) { return key(a) < key(b); });
  std::size_t out = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (out > 0 && key(entries_[out - 1]) == key(entries_[i])) entries_[out - 1].what |= entries_[i].what;
    else entries_[out++] = entries_[i];
  }
  entries_.resize(out);
  compacted_ = out;
}

const std::vector<access_trace::entry>& access_trace::entries() {
  compact();
  return entries_;
}

}  // namespace tl::sim
