#include "simulator/buffer.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

namespace tl::sim {

namespace {
long long element_count(const std::vector<long long>& shape) {
  long long n = 1;
  for (long long d : shape) n *= d;
  return n;
}
}  // namespace

buffer::buffer(std::string name, std::vector<long long> shape, const char* dtype,
               std::size_t elem_size, void* data, bool initialized)
    : shadow(element_count(shape), initialized ? written_by_host : never_written),
      name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype), elem_size_(elem_size),
      data_(data), count_(shadow.size()) {}

buffer::buffer(std::string name, std::vector<long long> shape, const char* dtype,
               std::size_t elem_size, without_data_t)
    : shadow(0, written_by_host), name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype),
      elem_size_(elem_size), data_(nullptr), count_(element_count(shape_)) {}

std::string buffer::describe() const {
  std::ostringstream s;
  s << name_ << ": " << dtype_ << " [";
  for (std::size_t i = 0; i < shape_.size(); ++i) s << (i ? ", " : "") << shape_[i];
  s << "], valid offsets 0 to " << count_ - 1;
  return s.str();
}

std::string buffer::coords_of(long long offset) const {
  if (offset < 0 || offset >= count_) return "outside";
  std::vector<long long> c(shape_.size());
  for (std::size_t a = shape_.size(); a-- > 0;) {
    c[a] = offset % shape_[a];
    offset /= shape_[a];
  }
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < c.size(); ++i) s << (i ? ", " : "") << c[i];
  s << "]";
  return s.str();
}

void buffer::count_line(const std::source_location& loc, bool stores, long long lanes) {
  // A kernel has a few lines per buffer: a linear search, once per call (never per lane).
  for (auto& l : by_line)
    if (l.where.line() == loc.line() && l.stores == stores &&
        (l.where.file_name() == loc.file_name() ||
         std::strcmp(l.where.file_name(), loc.file_name()) == 0)) {
      l.lanes += lanes;
      l.program_lanes += lanes;
      ++l.calls;
      return;
    }
  by_line.push_back({loc, stores, lanes, 1, lanes, 0});
}

void buffer::end_program() {
  counters.max_program_loads = std::max(counters.max_program_loads, program_loads);
  counters.max_program_stores = std::max(counters.max_program_stores, program_stores);
  program_loads = 0;
  program_stores = 0;
  for (auto& l : by_line) {
    l.max_program_lanes = std::max(l.max_program_lanes, l.program_lanes);
    l.program_lanes = 0;
  }
}

long long buffer::unwritten_count() const { return shadow.count_written_by(never_written); }

}  // namespace tl::sim
