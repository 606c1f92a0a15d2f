#include "simulator/prefetch.hpp"

#include <sstream>

namespace tl::sim {

namespace {

const char* plural(long long n, const char* one, const char* many) { return n == 1 ? one : many; }

[[noreturn]] void raise_prefetch(const prefetch_report& r, const char* kind, const char* what,
                                 const std::string& story, const char* advice) {
  const context& ctx = current_context();
  diagnostic d;
  d.kind = kind;
  d.source = source_string(r.loc);
  d.buffer = r.buf.name();
  d.program = ctx.program;
  d.lanes = r.lanes;
  std::ostringstream s;
  s << kind << ": program " << program_string(ctx.program) << " loads from " << r.buf.name() << " "
    << what << " at " << d.source << "\n";
  s << "  " << r.buf.describe() << "\n";
  s << "  On the GPU this load is copied " << r.ahead << plural(r.ahead, " iteration", " iterations")
    << " ahead (tl::range's num_stages<" << r.range_stages << ">";
  if (r.stages != r.range_stages) s << ", " << r.stages << " stages for this tile";
  s << "): " << story << " " << r.count << plural(r.count, " lane", " lanes") << ", the first:\n";
  for (const auto& lane : r.lanes) {
    s << "    lane " << lane.lane << " at " << coords_string(lane.coords.data(), r.rank) << ": offset "
      << lane.offset;
    if (lane.offset >= 0 && lane.offset < r.buf.count() && r.buf.shape().size() > 1)
      s << " = " << r.buf.name() << r.buf.coords_of(lane.offset);
    s << "\n";
  }
  if (r.count > static_cast<long long>(r.lanes.size()))
    s << "    ... and " << r.count - static_cast<long long>(r.lanes.size()) << " more\n";
  s << "  " << advice;
  d.message = s.str();
  throw kernel_error(std::move(d));
}

}  // namespace

void prefetch_out_of_bounds(const prefetch_report& r) {
  std::ostringstream story;
  story << "at index " << r.issued << " it copies the tile of index " << r.copied
        << ", every lane the load's mask turns on there, whether or not that iteration runs the "
           "load (an `if` around it does not stop the copy). Outside "
        << r.buf.name() << ":";
  raise_prefetch(r, kind::out_of_bounds, "outside the buffer (a prefetch)", story.str(),
                 "Mask the load so that its lanes stay in bounds at every index of the range (a "
                 "mask such as `offsets < N`, not only the `if`), or give the range fewer stages "
                 "(tl::num_stages<1> or a plain `for` copies nothing ahead).");
}

void prefetch_overwritten(const prefetch_report& r) {
  std::ostringstream story;
  story << "its tile for index " << r.copied << " was read from memory at index " << r.issued
        << ", and this program's stores changed since:";
  raise_prefetch(r, kind::race_read_write, "elements this program stored after the GPU copied them",
                 story.str(),
                 "The GPU gives the values from before the store, the simulator the stored ones. "
                 "Load what the program stored in an earlier iteration in a range of one stage "
                 "(tl::num_stages<1>) or a plain `for`: with S stages, what a store wrote up to "
                 "S - 1 iterations before a load reaches it only in the simulator.");
}

}  // namespace tl::sim
