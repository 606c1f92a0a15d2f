// The CUDA runtime, or, in a build with TL_EMULATED_GPU, its emulation on the host
// (cuda/host_emulation.hpp), so that g++ can build and test the GPU lowering without a GPU.
#pragma once

#if defined(TL_EMULATED_GPU)
#include "cuda/host_emulation.hpp"
#else
#include <cuda_runtime.h>
#endif
