// What the front (tile/) takes from the GPU backend before its own headers are read: the half
// types, where an operation was written (nothing, on the GPU), and the reports the simulator
// raises while it computes a lane, which the GPU does not: the front's checks are compiled out
// (`checks_lanes`), and the reports are declared only so that the front's templates read the same
// for both backends. Nothing defines them: a GPU kernel that called one would not link.
// tile/tl.hpp includes this first; a cuda/ header that includes a tile/ header directly includes
// it before.
#pragma once

#include <source_location>

#include "cuda/half.cuh"
#include "tile/config.hpp"

#define TL_FRONT_HOOKS 1

namespace tl {
inline namespace TL_ABI {
namespace backend {

// The bits of a __half or __nv_bfloat16 with Eigen's conversions and operations
// (cuda/half.cuh), so that both backends compute the same bits.
using float16 = cuda::float16_t;
using bfloat16 = cuda::bfloat16_t;

// Empty, and a node's plain member: a node that declared it [[no_unique_address]] had, in nvcc
// 13.0's device code, members placed past its own sizeof, so a copy of sizeof bytes
// (cuda/tile_storage.cuh's load_again) lost them.
struct op_location {
  constexpr op_location() = default;
  TL_FN constexpr op_location(const std::source_location&) {}
};

inline constexpr bool checks_lanes = false;

TL_FN void int32_step_overflow(const char* symbol, long long a, long long b, long long r,
                               long long lane, const int* coords, int rank,
                               const op_location& loc);
TL_FN void int32_scalar_overflow(long long value, const op_location& loc);
TL_FN void int32_overflow(long long value, const char* what);
TL_FN void float_to_int32_overflow(double value);
TL_FN void shift_count_out_of_range(long long count, const char* what);
TL_FN void range_step_zero(const op_location& loc);
TL_FN void float_turned_nonfinite(const char* op, bool binary, double a, double b, double r,
                                  const op_location& loc);

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
