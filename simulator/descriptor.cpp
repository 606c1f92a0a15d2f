#include "simulator/descriptor.hpp"

#include <sstream>
#include <string>

#include "simulator/diagnostic.hpp"

namespace tl::sim {

namespace {

[[noreturn]] void raise_descriptor(const buffer& buf, const std::string& headline,
                                   const std::string& details, const std::source_location& loc) {
  diagnostic d;
  d.kind = kind::out_of_bounds;
  d.source = source_string(loc);
  d.buffer = buf.name();
  const context* ctx = current_context_or_null();
  if (ctx) d.program = ctx->program;
  std::ostringstream s;
  s << kind::out_of_bounds << ": " << (ctx ? "program " + program_string(ctx->program) + ", " : "")
    << d.source << ": " << headline << "\n  " << buf.describe() << "\n" << details;
  d.message = s.str();
  throw kernel_error(std::move(d));
}

std::string shape_and_strides(const int* shape, const int* strides, int rank) {
  return "shape " + coords_string(shape, rank) + " with strides " + coords_string(strides, rank);
}

}  // namespace

void check_descriptor(const buffer& buf, long long base_offset, const int* shape,
                      const int* strides, int rank, const std::source_location& made) {
  for (int a = 0; a < rank; ++a) {
    if (shape[a] >= 1) continue;
    raise_descriptor(buf, "the tensor descriptor made here over " + buf.name() + " has " +
                              std::to_string(shape[a]) + " elements along axis " +
                              std::to_string(a) + ".",
                     "  Its " + shape_and_strides(shape, strides, rank) +
                         ": every dimension of a descriptor's shape is at least 1 (the copy "
                         "engine's rule). Is the size the kernel's argument you meant?",
                     made);
  }
  // The elements at the two far corners: every other element lies between them.
  // In 128 bits: five products of two int32 values do not fit in 64.
  int low[8] = {}, high[8] = {};
  __int128 lowest = base_offset, highest = base_offset;
  for (int a = 0; a < rank; ++a) {
    const long long reach = static_cast<long long>(shape[a] - 1) * strides[a];
    low[a] = reach < 0 ? shape[a] - 1 : 0;
    high[a] = reach < 0 ? 0 : shape[a] - 1;
    (reach < 0 ? lowest : highest) += reach;
  }
  if (lowest >= 0 && highest < buf.count()) return;
  const auto text = [](__int128 v) {
    const bool negative = v < 0;
    unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : v;
    std::string digits;
    do digits.insert(digits.begin(), static_cast<char>('0' + u % 10)); while (u /= 10);
    return negative ? "-" + digits : digits;
  };
  const bool past_end = highest >= buf.count();
  std::ostringstream s;
  s << "  Its " << shape_and_strides(shape, strides, rank) << ", from offset " << base_offset
    << ", reaches offsets " << text(lowest) << " to " << text(highest) << ": its element "
    << coords_string(past_end ? high : low, rank) << " is at offset "
    << text(past_end ? highest : lowest)
    << (past_end ? ", past the buffer's last offset " + std::to_string(buf.count() - 1)
                 : ", before the buffer's start")
    << ".\n  A descriptor describes elements of its buffer only: its shape is the tensor's sizes "
       "(not rounded up to the block; the block's elements past them read as zero), its strides "
       "count elements (the innermost is usually 1).";
  raise_descriptor(buf,
                   "the tensor descriptor made here over " + buf.name() + " reaches outside " +
                       buf.name() + ".",
                   s.str(), made);
}

void check_block_on_tensor(const buffer& buf, bool store, const int* coords, const int* block,
                           const int* shape, int rank, const std::source_location& made,
                           const std::source_location& loc) {
  for (int a = 0; a < rank; ++a) {
    const long long first = coords[a], last = first + block[a] - 1;
    if (last >= 0 && first < shape[a]) continue;
    std::ostringstream s;
    s << "  The descriptor's shape is " << coords_string(shape, rank) << ", its block "
      << coords_string(block, rank) << ": along axis " << a << " the block covers " << first
      << " to " << last << ", the tensor 0 to " << shape[a] - 1 << ".\n"
      << "  A block that overlaps the edge " << (store ? "writes nothing" : "reads zeros")
      << " past it (the copy engine's rule); one wholly outside is a mistake in its coordinates. "
         "They are element offsets (tl::program_id(0) * BLOCK), not block indices.";
    raise_descriptor(buf,
                     std::string(store ? "desc.store" : "desc.load") + " of the block at " +
                         coords_string(coords, rank) +
                         ", which lies wholly outside the tensor of the descriptor over " +
                         buf.name() + " made at " + source_string(made) + ".",
                     s.str(), loc);
  }
}

}  // namespace tl::sim
