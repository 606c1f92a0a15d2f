// Compiler-facing switches shared by both backends.
//
// The same kernel source is compiled twice: by g++ into the CPU simulator and by nvcc into a CUDA
// kernel. Everything in `tl` lives in an inline namespace named after the backend, so the two
// builds of `tl::tile<float, 128>` are distinct types with distinct symbols and can be linked into
// one program without breaking the one-definition rule.
#pragma once

#if defined(__CUDACC__)
#define TL_BACKEND_GPU 1
#define TL_ABI gpu
// Kernels run on the device only: the host never executes a program under nvcc. So does the
// whole language: a `__host__ __device__` function that reaches a device-only operation is
// rejected by nvcc when a kernel's expressions do not depend on its template parameters.
#define TL_KERNEL __device__
#define TL_FN __device__ inline
#define TL_UNROLL _Pragma("unroll")
#else
#define TL_BACKEND_CPU 1
#define TL_ABI cpu
#define TL_KERNEL
#define TL_FN inline
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
