// The one header a kernel includes: the `tl` tile language with the backend of this compiler
// (the CPU simulator under g++, CUDA under nvcc).
//
// The front (tile/) declares every name a kernel sees, once: shapes and broadcasting, lazy
// expressions and what each lane computes, pointers, the data tile and the operations. A backend
// supplies only storage and hooks: its front hooks first (the half types, where an operation was
// written, the reports of a lane the simulator checks), then the hooks of the operations, which
// tile/backend_hooks.hpp lists as a concept that each backend is checked against below. This is
// the one header of tile/ that includes a backend's.
#pragma once

#include "tile/config.hpp"

#if TL_BACKEND_CPU
#include "simulator/front_hooks.hpp"
#else
#include "cuda/front_hooks.cuh"
#endif

#include "tile/bits.hpp"
#include "tile/config.hpp"
#include "tile/dtypes.hpp"
#include "tile/expr.hpp"
#include "tile/lanes.hpp"
#include "tile/memory.hpp"
#include "tile/precision.hpp"
#include "tile/range.hpp"
#include "tile/reshape.hpp"
#include "tile/shape.hpp"
#include "tile/trans.hpp"

#if TL_BACKEND_CPU
#include "simulator/backend.hpp"
#include "simulator/print.hpp"
#else
#include "cuda/backend.cuh"
#include "cuda/print.cuh"
#endif

#include "tile/arg_reduce.hpp"
#include "tile/atomic.hpp"
#include "tile/descriptor.hpp"
#include "tile/ops.hpp"
#include "tile/print.hpp"
#include "tile/scan.hpp"
#include "tile/sort.hpp"
#include "tile/tile.hpp"
