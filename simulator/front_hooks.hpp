// What the front (tile/) takes from the simulator before its own headers are read: the half
// types, where an operation was written, and the reports the front raises while it computes a
// lane. tile/tl.hpp includes this first; a simulator header that includes a tile/ header
// directly includes it before.
//
// The reports are defined in simulator/context.cpp, bits.cpp and exp.cpp: each throws the
// diagnostic of the running launch (sim::kernel_error) or notes a non-finite value for its cause.
#pragma once

#include <Eigen/Core>
#include <source_location>

#include "tile/config.hpp"

#define TL_FRONT_HOOKS 1

namespace tl {
inline namespace TL_ABI {
namespace backend {

// IEEE binary16 and bfloat16, every operation computed in float and rounded back to nearest-even:
// the types the checker's Eigen references compute with.
using float16 = Eigen::half;
using bfloat16 = Eigen::bfloat16;

// Kept in every expression node, so that a report names the line of the operation.
using op_location = std::source_location;

// The simulator checks the lanes it computes (tile/expr.hpp, lanes.hpp, bits.hpp, range.hpp).
inline constexpr bool checks_lanes = true;

// `index-overflow` for an integer operation (`symbol`) whose int32 lanes a and b give r outside
// int32 (the GPU would wrap it), at the operation's line.
[[noreturn]] void int32_step_overflow(const char* symbol, long long a, long long b, long long r,
                                      long long lane, const int* coords, int rank,
                                      const op_location& loc);
// `index-overflow` for a C++ integer that does not fit the int32 tile it meets.
[[noreturn]] void int32_scalar_overflow(long long value, const op_location& loc);
// `index-overflow` for an integer lane outside int32 that an operation (`what`) is about to use.
[[noreturn]] void int32_overflow(long long value, const char* what);
// `index-overflow` for a float lane converted to int that is NaN or outside int32.
[[noreturn]] void float_to_int32_overflow(double value);
// `index-overflow` for a shift count outside 0..31.
[[noreturn]] void shift_count_out_of_range(long long count, const char* what);
// `crash` for tl::range(lo, hi, 0), which would never end.
[[noreturn]] void range_step_zero(const op_location& loc);
// A float lane that an operation made NaN or infinite, noted for the nan-inf report's cause
// while the checker traces the run (cheap otherwise).
void float_turned_nonfinite(const char* op, bool binary, double a, double b, double r,
                            const op_location& loc);
// e^x of a float lane: glibc's expf algorithm in IEEE operations, so the same bits on every
// machine (simulator/exp.hpp).
float exp_lane(float x);

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
