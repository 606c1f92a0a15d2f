// Tensor descriptors on the GPU (the hooks of tile/descriptor.hpp): a block moves as the masked
// load or store it means (tl::load of its pointer tile with zeros outside the shape, tl::store
// inside it), through cuda/memory.cuh's 16-byte vectors. This is the path every GPU takes and
// the reference the copy engine's lowering (TMA, on sm_90) must agree with.
#pragma once

#include "cuda/runtime.cuh"

#include <source_location>

#include "cuda/memory.cuh"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {
namespace backend {

template <class T, int Rank>
struct descriptor_state {};

template <class D>
__device__ __forceinline__ void make_descriptor(D&, const std::source_location&) {}

template <class Elem, class Block, class D, class PE, class MaskE>
__device__ __forceinline__ auto descriptor_load(const D&, const int*, const PE& pe,
                                                const MaskE& in_shape, const std::source_location&) {
  return cuda::load<Elem, Block, true>(pe, in_shape, scalar_expr<Elem>(Elem(0)));
}

template <class Elem, class Block, class D, class PE, class V, class MaskE>
__device__ __forceinline__ void descriptor_store(const D&, const int*, const PE& pe, const V& values,
                                                 const MaskE& in_shape, const std::source_location&) {
  cuda::store<Elem, Block>(pe, values, in_shape);
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
