// Compiler-facing switches shared by both backends.
//
// The same kernel source is compiled twice: by g++ into the CPU simulator and by nvcc into a CUDA
// kernel. Everything in `tl` lives in an inline namespace named after the backend, so the two
// builds of `tl::tile<float, 128>` are distinct types with distinct symbols and can be linked into
// one program without breaking the one-definition rule.
#pragma once

#define TL_CONCAT_(a, b) a##b
#define TL_CONCAT(a, b) TL_CONCAT_(a, b)

#if defined(__CUDACC__) || defined(TL_EMULATED_GPU)
#define TL_BACKEND_GPU 1
// The warps of every program built in this translation unit: layouts are types, and each depends
// on it. A kernel is built in the unit whose TL_NUM_WARPS is its num_warps (a puzzle's GPU module
// is compiled once per count its configurations use: cmake/compile-logged.sh); the inline
// namespace (tl::gpu_w4, ...) keeps the builds for different warp counts apart in one program.
#ifndef TL_NUM_WARPS
#define TL_NUM_WARPS 4
#endif
#define TL_ABI TL_CONCAT(gpu_w, TL_NUM_WARPS)
// Kernels run on the device only: the host never executes a program under nvcc. So does the
// whole language: a `__host__ __device__` function that reaches a device-only operation is
// rejected by nvcc when a kernel's expressions do not depend on its template parameters.
#define TL_KERNEL __device__
#define TL_FN __device__ inline
// A function the compiler must inline, so that what its caller knows as constants stays known.
#define TL_FORCE_INLINE __device__ __forceinline__
#define TL_UNROLL _Pragma("unroll")
#else
#define TL_BACKEND_CPU 1
#define TL_ABI cpu
#define TL_KERNEL
#define TL_FN inline
#define TL_FORCE_INLINE inline
#define TL_UNROLL
#endif

namespace tl {
inline namespace TL_ABI {

// Integer lanes are evaluated in 64 bits on the CPU so that offsets which overflow int32 can be
// reported; on the GPU they are plain int, as in Triton.
#if TL_BACKEND_CPU
using index_t = long long;
#else
using index_t = int;
#endif

}  // namespace TL_ABI
}  // namespace tl
