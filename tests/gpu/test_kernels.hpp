// The kernels the GPU tests run besides the puzzles', by name: every operation of docs/tl.md,
// the semantics cases, the layout conversions and dot, each with 1, 2, 4 or 8 warps. The simulator
// side (tests/gpu/parity.cpp) and the GPU side (tests/gpu/kernels.inc) use the same list.
#pragma once

#include "tests/kernels/atomics.hpp"
#include "tests/kernels/descriptor.hpp"
#include "tests/kernels/dot.hpp"
#include "tests/kernels/dot_precision.hpp"
#include "tests/kernels/every_op.hpp"
#include "tests/kernels/eight_bit.hpp"
#include "tests/kernels/half.hpp"
#include "tests/kernels/layouts.hpp"
#include "tests/kernels/math.hpp"
#include "tests/kernels/pipeline.hpp"
#include "tests/kernels/random.hpp"
#include "tests/kernels/ring.hpp"
#include "tests/kernels/runs.hpp"
#include "tests/kernels/semantics.hpp"
#include "tests/kernels/trans.hpp"

namespace tp::gpu_tests {

// A kernel run with another number of warps than it declares: the puzzles' solutions say 4, and
// the tests run them with every count from 1 to 32.
template <class Kernel, int Warps>
struct with_warps : Kernel {
  static constexpr int num_warps = Warps;
};

// A kernel with a puzzle's signature that stores nothing, as the shipped stubs do: its outputs
// stay poisoned, and the parity test must report them (the twin of the solutions passing).
template <class Signature, int Warps>
struct stores_nothing;
template <class... Params, int Warps>
struct stores_nothing<void(Params...), Warps> {
  static constexpr int num_warps = Warps;
  TL_KERNEL void operator()(Params...) const {}
};

// Every elementwise operation, the semantics cases, the math functions, random numbers, vector
// runs, reshapes, transposes, 16-bit operations and atomics.
template <class F>
void for_each_elementwise_kernel(F&& f) {
  f.template operator()<test_kernels::EveryOp<4, 8, 4>>("every_op<4, 8>, 4 warps");
  f.template operator()<test_kernels::EveryOp<1, 64, 1>>("every_op<1, 64>, 1 warp");
  f.template operator()<test_kernels::EveryOp<16, 32, 8>>("every_op<16, 32>, 8 warps");
  f.template operator()<test_kernels::Semantics<64, 4>>("semantics, 4 warps");
  f.template operator()<test_kernels::Semantics<64, 1>>("semantics, 1 warp");
  f.template operator()<test_kernels::MathFunctions<256, 4>>("math functions, 4 warps");
  f.template operator()<test_kernels::MathFunctions<256, 1>>("math functions, 1 warp");
  f.template operator()<test_kernels::RandomNumbers<128, 4>>("random numbers<128>, 4 warps");
  f.template operator()<test_kernels::RandomNumbers<32, 1>>("random numbers<32>, 1 warp");
  f.template operator()<test_kernels::RandomStream<1024, 8>>("random stream<1024>, 8 warps");
  f.template operator()<test_kernels::RandomStream<256, 2>>("random stream<256>, 2 warps");
  f.template operator()<test_kernels::VectorRuns<4, 32, 4>>("vector runs<4, 32>, 4 warps");
  f.template operator()<test_kernels::VectorRuns<8, 8, 1>>("vector runs<8, 8>, 1 warp");
  f.template operator()<test_kernels::VectorRuns<16, 4, 2>>("vector runs<16, 4>, 2 warps");
  f.template operator()<test_kernels::VectorRuns<32, 2, 1>>("vector runs<32, 2>, 1 warp");
  f.template operator()<test_kernels::Reshapes<256, 4>>("reshapes<256>, 4 warps");
  f.template operator()<test_kernels::Reshapes<64, 8>>("reshapes<64>, 8 warps");
  f.template operator()<test_kernels::Reshapes<128, 1>>("reshapes<128>, 1 warp");
  f.template operator()<test_kernels::Transposes<float, 16, 32, 4>>("transposes float<16, 32>, 4 warps");
  f.template operator()<test_kernels::Transposes<float, 64, 8, 2>>("transposes float<64, 8>, 2 warps");
  f.template operator()<test_kernels::Transposes<float, 8, 64, 1>>("transposes float<8, 64>, 1 warp");
  f.template operator()<test_kernels::Transposes<float, 32, 32, 8>>("transposes float<32, 32>, 8 warps");
  f.template operator()<test_kernels::Transposes<tl::float16, 32, 64, 4>>("transposes float16<32, 64>, 4 warps");
  f.template operator()<test_kernels::Transposes<tl::bfloat16, 16, 16, 2>>("transposes bfloat16<16, 16>, 2 warps");
  f.template operator()<test_kernels::HalfOps<tl::float16, 256, 4>>("half float16<256>, 4 warps");
  f.template operator()<test_kernels::HalfOps<tl::bfloat16, 256, 4>>("half bfloat16<256>, 4 warps");
  f.template operator()<test_kernels::HalfOps<tl::float16, 64, 1>>("half float16<64>, 1 warp");
  f.template operator()<test_kernels::HalfOps<tl::bfloat16, 512, 8>>("half bfloat16<512>, 8 warps");
  f.template operator()<test_kernels::EightBitOps<tl::int8, 256, 4>>("eight-bit int8<256>, 4 warps");
  f.template operator()<test_kernels::EightBitOps<tl::uint8, 128, 1>>("eight-bit uint8<128>, 1 warp");
  f.template operator()<test_kernels::EightBitOps<tl::int8, 512, 8>>("eight-bit int8<512>, 8 warps");
  // Atomics across programs; 16 lanes on 4 warps and 256 on 8 replicate the tile over threads,
  // whose old values then reach every copy through shared memory.
  f.template operator()<test_kernels::Atomics<16, 4>>("atomics<16>, 4 warps");
  f.template operator()<test_kernels::Atomics<64, 4>>("atomics<64>, 4 warps");
  f.template operator()<test_kernels::Atomics<32, 1>>("atomics<32>, 1 warp");
  f.template operator()<test_kernels::Atomics<256, 8>>("atomics<256>, 8 warps");
}

// Layout conversions.
template <class F>
void for_each_layout_kernel(F&& f) {
  f.template operator()<test_kernels::Layouts<4, 8, 4>>("layouts<4, 8>, 4 warps");
  f.template operator()<test_kernels::Layouts<1, 128, 1>>("layouts<1, 128>, 1 warp");
  f.template operator()<test_kernels::Layouts<16, 32, 4>>("layouts<16, 32>, 4 warps");
  f.template operator()<test_kernels::Layouts<32, 16, 8>>("layouts<32, 16>, 8 warps");
  f.template operator()<test_kernels::Layouts<64, 32, 8>>("layouts<64, 32>, 8 warps");
  f.template operator()<test_kernels::Layouts<8, 256, 2>>("layouts<8, 256>, 2 warps");
}

// `dot` on float and 16-bit tiles (mma.sync, and wgmma where a warpgroup holds the accumulator).
template <class F>
void for_each_mma_kernel(F&& f) {
  f.template operator()<test_kernels::Dot<32, 64, 16, 4>>("dot<32, 64, 16>, 4 warps");
  f.template operator()<test_kernels::Dot<64, 16, 32, 8>>("dot<64, 16, 32>, 8 warps");
  f.template operator()<test_kernels::Dot<16, 32, 64, 1>>("dot<16, 32, 64>, 1 warp");
  f.template operator()<test_kernels::Dot<128, 32, 16, 2>>("dot<128, 32, 16>, 2 warps");
  f.template operator()<test_kernels::Dot<16, 16, 16, 32>>("dot<16, 16, 16>, 32 warps");
  // 66 KiB of staged operands: past the 48 KiB of static shared memory, in the kernel's arena.
  f.template operator()<test_kernels::Dot<128, 128, 64, 16>>("dot<128, 128, 64>, 16 warps");
  f.template operator()<test_kernels::HalfDot<tl::float16, 32, 64, 16, 4>>("half dot float16<32, 64, 16>, 4 warps");
  f.template operator()<test_kernels::HalfDot<tl::bfloat16, 16, 32, 64, 2>>("half dot bfloat16<16, 32, 64>, 2 warps");
}

// Pipelined ranges: their prefetched loads and staged operands.
template <class F>
void for_each_pipeline_kernel(F&& f) {
  // Stages and warps within a site's budget (max_stage_bytes): every prefetched load of the
  // kernel's seven kinds holds its stages.
  f.template operator()<test_kernels::Pipelined<2, 16, 2>>("pipelined range, 2 stages, 2 warps");
  f.template operator()<test_kernels::Pipelined<3, 16, 2>>("pipelined range, 3 stages, 2 warps");
  f.template operator()<test_kernels::Pipelined<4, 16, 1>>("pipelined range, 4 stages, 1 warp");
  f.template operator()<test_kernels::Pipelined<3, 32, 1>>("pipelined range, 3 stages, 1 warp");
  f.template operator()<test_kernels::PipelinedHalfDot<tl::float16, 3, 32, 32, 16, 2>>(
      "pipelined half dot float16<32, 32, 16>, 3 stages, 2 warps");
  f.template operator()<test_kernels::PipelinedHalfDot<tl::bfloat16, 2, 32, 32, 32, 4>>(
      "pipelined half dot bfloat16<32, 32, 32>, 2 stages, 4 warps");
  f.template operator()<test_kernels::PipelinedHalfDot<tl::float16, 4, 32, 32, 16, 1>>(
      "pipelined half dot float16<32, 32, 16>, 4 stages, 1 warp");
  // A warpgroup's accumulator: wgmma reads the slots (cuda/wgmma.cuh).
  f.template operator()<test_kernels::PipelinedHalfDot<tl::float16, 3, 64, 64, 32, 4>>(
      "pipelined half dot float16<64, 64, 32>, 3 stages, 4 warps");
}

// Tensor descriptors and their rings.
template <class F>
void for_each_descriptor_kernel(F&& f) {
  // Tensor descriptors: blocks over the edges, at negative coordinates, 1-D, 3-D, transposed;
  // rows of 80 and 48 bytes (the copy engine takes them, on sm_90a and in the emulation) and of
  // 90 (it does not: plain loads).
  f.template operator()<test_kernels::Descriptors<float, 10, 20, 4, 8, 4>>(
      "descriptors float [10, 20], blocks [4, 8], 4 warps");
  f.template operator()<test_kernels::Descriptors<tl::float16, 6, 24, 1, 16, 1>>(
      "descriptors float16 [6, 24], blocks [1, 16], 1 warp");
  f.template operator()<test_kernels::Descriptors<tl::bfloat16, 20, 45, 8, 32, 8>>(
      "descriptors bfloat16 [20, 45], blocks [8, 32], 8 warps");
}

// Calls f.template operator()<Kernel>(name) for each ring test kernel: a family of its own, for it
// is the heaviest nvcc compile of the GPU tests.
template <class F>
void for_each_descriptor_ring_kernel(F&& f) {
  // Descriptor loads in pipelined ranges: rings the copy engine fills (cuda/ring.cuh), read in
  // place by wgmma (4 and 8 warps) and by mma.sync (1 warp); 2 slots (the product waited for
  // before a refill), 3 and 4 (the last product in flight).
  f.template operator()<test_kernels::DescriptorRing<tl::float16, 3, 64, 64, 32, 4>>(
      "descriptor ring float16<64, 64, 32>, 3 stages, 4 warps");
  f.template operator()<test_kernels::DescriptorRing<tl::bfloat16, 2, 64, 32, 16, 4>>(
      "descriptor ring bfloat16<64, 32, 16>, 2 stages, 4 warps");
  f.template operator()<test_kernels::DescriptorRing<tl::float16, 4, 32, 32, 16, 1>>(
      "descriptor ring float16<32, 32, 16>, 4 stages, 1 warp");
  f.template operator()<test_kernels::DescriptorRing<tl::bfloat16, 3, 128, 64, 64, 8>>(
      "descriptor ring bfloat16<128, 64, 64>, 3 stages, 8 warps");
}

// Calls f.template operator()<Kernel>(name) for each test kernel.
template <class F>
void for_each_test_kernel(F&& f) {
  for_each_elementwise_kernel(f);
  for_each_layout_kernel(f);
  for_each_mma_kernel(f);
  for_each_pipeline_kernel(f);
  for_each_descriptor_kernel(f);
  for_each_descriptor_ring_kernel(f);
}

// Calls f.template operator()<Kernel>(name) for each matmul kernel of the dot parity test
// (tests/gpu/dot_parity.cpp): every operand precision, shapes with one and several m16n8 tiles
// per warp, and more warps than tiles (replicated warps).
template <class F>
void for_each_dot_kernel(F&& f) {
  using test_kernels::MatmulPrecision;
  f.template operator()<MatmulPrecision<float, tl::ieee_t, 32, 32, 16, 4>>("matmul fp32 <32, 32, 16>, 4 warps");
  f.template operator()<MatmulPrecision<float, tl::ieee_t, 64, 64, 32, 4>>("matmul fp32 <64, 64, 32>, 4 warps");
  f.template operator()<MatmulPrecision<float, tl::ieee_t, 16, 32, 64, 1>>("matmul fp32 <16, 32, 64>, 1 warp");
  f.template operator()<MatmulPrecision<float, tl::tf32_t, 32, 32, 16, 4>>("matmul tf32 <32, 32, 16>, 4 warps");
  f.template operator()<MatmulPrecision<float, tl::tf32_t, 64, 64, 32, 4>>("matmul tf32 <64, 64, 32>, 4 warps");
  f.template operator()<MatmulPrecision<float, tl::tf32_t, 16, 32, 16, 1>>("matmul tf32 <16, 32, 16>, 1 warp");
  f.template operator()<MatmulPrecision<float, tl::tf32_t, 32, 16, 64, 8>>("matmul tf32 <32, 16, 64>, 8 warps");
  f.template operator()<MatmulPrecision<tl::float16, tl::ieee_t, 32, 32, 16, 4>>("matmul float16 <32, 32, 16>, 4 warps");
  f.template operator()<MatmulPrecision<tl::float16, tl::ieee_t, 16, 16, 16, 1>>("matmul float16 <16, 16, 16>, 1 warp");
  f.template operator()<MatmulPrecision<tl::bfloat16, tl::ieee_t, 64, 32, 32, 4>>("matmul bfloat16 <64, 32, 32>, 4 warps");
  f.template operator()<MatmulPrecision<tl::bfloat16, tl::ieee_t, 32, 64, 64, 8>>("matmul bfloat16 <32, 64, 64>, 8 warps");
  // Warpgroup accumulators (wgmma on sm_90a, cuda/wgmma.cuh): two m64 tiles per warpgroup, two
  // warpgroups with b in two 64-column panels, a in two 64-column panels with a 32-byte-swizzled b.
  f.template operator()<MatmulPrecision<tl::float16, tl::ieee_t, 128, 64, 64, 4>>("matmul float16 <128, 64, 64>, 4 warps");
  f.template operator()<MatmulPrecision<tl::bfloat16, tl::ieee_t, 128, 128, 32, 8>>("matmul bfloat16 <128, 128, 32>, 8 warps");
  f.template operator()<MatmulPrecision<tl::float16, tl::ieee_t, 64, 16, 128, 4>>("matmul float16 <64, 16, 128>, 4 warps");
  // a declared as a tile (the accumulator layout): its fragments from registers where the warps
  // split M only (the first four), staged where they split K too (the last two).
  using test_kernels::MatmulDeclaredA;
  f.template operator()<MatmulDeclaredA<tl::float16, 64, 32, 32, 4, false>>("matmul float16, a declared <64, 32, 32>, 4 warps");
  f.template operator()<MatmulDeclaredA<tl::bfloat16, 32, 16, 64, 1, false>>("matmul bfloat16, a declared <32, 16, 64>, 1 warp");
  f.template operator()<MatmulDeclaredA<tl::float16, 64, 64, 16, 2, true>>("matmul float16, a cast from float <64, 64, 16>, 2 warps");
  f.template operator()<MatmulDeclaredA<tl::bfloat16, 128, 32, 32, 8, true>>("matmul bfloat16, a cast from float <128, 32, 32>, 8 warps");
  f.template operator()<MatmulDeclaredA<tl::float16, 16, 32, 32, 4, false>>("matmul float16, a declared <16, 32, 32>, 4 warps");
  f.template operator()<MatmulDeclaredA<tl::bfloat16, 32, 32, 32, 8, true>>("matmul bfloat16, a cast from float <32, 32, 32>, 8 warps");
  // q declared before a loop and p computed in it, both a operands from registers: in a
  // pipelined loop and in a plain one.
  using test_kernels::LoopInvariantA;
  f.template operator()<LoopInvariantA<tl::float16, 64, 64, 4, 2>>("two products, a from registers, 2-stage loop <64, 64>, 4 warps");
  f.template operator()<LoopInvariantA<tl::bfloat16, 128, 64, 8, 2>>("two products, a from registers, 2-stage loop <128, 64>, 8 warps");
  f.template operator()<LoopInvariantA<tl::float16, 128, 64, 8, 1>>("two products, a from registers, plain loop <128, 64>, 8 warps");
  // b as tl::trans of its [B1, BK] rows (flash attention's kᵀ): 16-bit rows staged as loaded and
  // read with plain ldmatrix; TF32 and float32 too; a as tl::trans of its columns in a few.
  using test_kernels::MatmulTrans;
  f.template operator()<MatmulTrans<tl::float16, tl::ieee_t, 32, 32, 16, 4, false>>("matmul float16, trans(b) <32, 32, 16>, 4 warps");
  f.template operator()<MatmulTrans<tl::float16, tl::ieee_t, 16, 64, 64, 1, false>>("matmul float16, trans(b) <16, 64, 64>, 1 warp");
  f.template operator()<MatmulTrans<tl::bfloat16, tl::ieee_t, 64, 32, 32, 4, false>>("matmul bfloat16, trans(b) <64, 32, 32>, 4 warps");
  f.template operator()<MatmulTrans<tl::bfloat16, tl::ieee_t, 32, 64, 16, 8, false>>("matmul bfloat16, trans(b) <32, 64, 16>, 8 warps");
  f.template operator()<MatmulTrans<tl::float16, tl::ieee_t, 64, 128, 64, 4, false>>("matmul float16, trans(b) <64, 128, 64>, 4 warps");
  f.template operator()<MatmulTrans<tl::float16, tl::ieee_t, 32, 32, 32, 2, true>>("matmul float16, trans(a), trans(b) <32, 32, 32>, 2 warps");
  f.template operator()<MatmulTrans<float, tl::tf32_t, 32, 32, 16, 4, false>>("matmul tf32, trans(b) <32, 32, 16>, 4 warps");
  f.template operator()<MatmulTrans<float, tl::ieee_t, 32, 32, 16, 4, false>>("matmul fp32, trans(b) <32, 32, 16>, 4 warps");
  f.template operator()<MatmulTrans<float, tl::ieee_t, 16, 32, 64, 1, true>>("matmul fp32, trans(a), trans(b) <16, 32, 64>, 1 warp");
  // int8 and uint8 operands into an int32 accumulator.
  using test_kernels::MatmulInteger;
  f.template operator()<MatmulInteger<tl::int8, 32, 32, 32, 4>>("matmul int8 <32, 32, 32>, 4 warps");
  f.template operator()<MatmulInteger<tl::uint8, 64, 32, 64, 4>>("matmul uint8 <64, 32, 64>, 4 warps");
  f.template operator()<MatmulInteger<tl::int8, 16, 16, 16, 1>>("matmul int8 <16, 16, 16>, 1 warp");
}

}  // namespace tp::gpu_tests
