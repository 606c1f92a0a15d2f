// The one header a kernel includes: the `tl` tile language with the backend of this compiler
// (the CPU simulator under g++, CUDA under nvcc).
#pragma once

#include "tile/config.hpp"
#include "tile/expr.hpp"
#include "tile/shape.hpp"

#if TL_BACKEND_CPU
#include "simulator/backend.hpp"
#else
#include "cuda/backend.cuh"
#endif
