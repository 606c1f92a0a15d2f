// The hook of the access trace (simulator/trace.hpp) in tl::load and tl::store: when the launch
// records a trace, every lane's mask and address are evaluated once more and recorded before the
// access itself runs (so the lanes of an access that fails are in the trace too). Without a trace
// it costs one test of a pointer per load or store.
#pragma once

#include "simulator/context.hpp"
#include "simulator/trace.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/tile_storage.hpp"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {
namespace detail {

template <class S, class PE, class MaskE>
void trace_access(sim::access_trace& trace, const PE& pe, const MaskE& mask, const sim::buffer& buf,
                  int program, bool is_store) {
  for_each_pos<S>([&](const pos<S::rank>& p, long long) {
    const auto pm = broadcast_pos<shape_of_t<MaskE>, S>(p);
    if constexpr (has_data_v<MaskE>) {
      if (mask.poison(pm)) return;
    }
    const auto pp = broadcast_pos<typename PE::shape_type, S>(p);
    if constexpr (has_data_v<typename PE::offsets_type>) {
      if (pe.offsets.poison(pp)) return;
    }
    const long long offset = pe.base.address.offset + static_cast<long long>(pe.offsets.eval(pp));
    std::uint8_t what;
    if (!mask.eval(pm)) what = is_store ? sim::traced_masked_store : sim::traced_masked_load;
    else if (offset < 0 || offset >= buf.count())
      what = is_store ? sim::traced_outside_store : sim::traced_outside_load;
    else what = is_store ? sim::traced_store : sim::traced_load;
    trace.record(buf, program, offset, what);
  });
}

}  // namespace detail
}  // namespace TL_ABI
}  // namespace tl
