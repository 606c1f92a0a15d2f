// The simulator's check for tile/bits.hpp: a shift count outside 0..31.
#include <string>

#include "simulator/context.hpp"
#include "simulator/front_hooks.hpp"
#include "tile/bits.hpp"

namespace tl::cpu::backend {

void shift_count_out_of_range(long long count, const char* what) {
  sim::raise_at(sim::kind::index_overflow,
                std::string("a lane shifts an int32 by ") + std::to_string(count) + " with " +
                    what + ": shift counts of int32 lanes must be 0 to 31 (the GPU clamps other "
                    "counts, C++ leaves them undefined). Check how the count is computed.",
                sim::current_context().last_op);
}

}  // namespace tl::cpu::backend
