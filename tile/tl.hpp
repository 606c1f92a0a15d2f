// The one header a kernel includes: the `tl` tile language with the backend of this compiler
// (the CPU simulator under g++, CUDA under nvcc).
//
// The front (tile/) declares every name a kernel sees, once: shapes and broadcasting, lazy
// expressions and what each lane computes, pointers, the data tile and the operations. A backend
// supplies only storage and the hooks listed at the top of tile/ops.hpp.
#pragma once

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
#else
#include "cuda/backend.cuh"
#endif

#include "tile/descriptor.hpp"
#include "tile/ops.hpp"
#include "tile/print.hpp"
#include "tile/tile.hpp"
