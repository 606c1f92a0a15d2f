// The host emulation of the CUDA pieces the GPU backend uses (cuda/host_emulation.hpp) does what
// a GPU does where the parity tests rely on it, and reports a barrier that not every thread of a
// block reaches instead of hanging (and an mbarrier wait that nothing completes).
#define TL_EMULATED_GPU 1
#include "cuda/host_emulation.hpp"
#include "cuda/arch/tma.cuh"
#include "cuda/shared_arena.cuh"
#include "cuda/wgmma.cuh"
#include "tests/gpu/launch_emulated.hpp"
#include "tests/kernels/descriptor.hpp"
#include "tests/kernels/ring.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

TEST_CASE("the emulated block runs every thread to each barrier before any goes past it",
          "[emulation]") {
  tl::emulation::block block;
  std::vector<int> seen(64, -1);
  std::vector<int> before(64, 0);
  const std::string error = block.run({0, 0, 0}, {1, 1, 1}, 64, [&] {
    const int me = static_cast<int>(threadIdx.x);
    before[me] = 1;
    __syncthreads();
    int count = 0;
    for (int b : before) count += b;
    seen[me] = count;
  });
  CHECK(error.empty());
  CHECK(seen == std::vector<int>(64, 64));
}

TEST_CASE("emulated shuffles exchange values between the lanes of each warp", "[emulation]") {
  tl::emulation::block block;
  std::vector<float> got(64);
  const std::string error = block.run({0, 0, 0}, {1, 1, 1}, 64, [&] {
    const int me = static_cast<int>(threadIdx.x);
    float v = static_cast<float>(me);
    v = __shfl_xor_sync(0xffffffffu, v, 1);
    v = __shfl_xor_sync(0xffffffffu, v, 16);
    got[me] = v;
  });
  CHECK(error.empty());
  for (int t = 0; t < 64; ++t) CHECK(got[t] == static_cast<float>(t ^ 17));
}

TEST_CASE("a barrier that only some threads of a block reach is reported, not hung",
          "[emulation]") {
  tl::emulation::block block;
  const std::string error = block.run({0, 0, 0}, {1, 1, 1}, 64, [&] {
    if (threadIdx.x % 2 == 0) return;  // the store-returns-early bug of the first GPU backend
    __syncthreads();
  });
  CHECK_THAT(error, Catch::Contains("reached by 32 of the block's 64 threads"));
}

TEST_CASE("each shared buffer of a kernel is its own, 128-byte aligned, the same at every call",
          "[emulation]") {
  struct first;
  struct second;
  using tl::cuda::shared_region;
  unsigned char* a = shared_region<first, 1000>();
  unsigned char* b = shared_region<second, 1000>();
  CHECK(a != b);
  CHECK(shared_region<first, 1000>() == a);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 128 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 128 == 0);
}

TEST_CASE("a kernel whose shared memory passes what the GPU gives a block is refused with both "
          "sizes and what to change",
          "[emulation]") {
  const std::string message = tl::cuda::shared_arena_too_large(240 * 1024 + 1, 227 * 1024);
  CHECK(message.find("needs 241 KiB of shared memory per program") != std::string::npos);
  CHECK(message.find("at most 227 KiB") != std::string::npos);
  CHECK(message.find("use smaller blocks, or fewer stages in tl::range") != std::string::npos);
}

// cuda/wgmma.cuh steps a wgmma descriptor through its operand by adding to its low word
// (wgmma_operand::advanced) instead of encoding each step's address anew: the same descriptor
// wherever the address stays within a block's shared memory (227 KiB, below the start field's
// 256 KiB), the field never carrying into the leading byte offset above it.
TEST_CASE("a wgmma descriptor of an address further on is the first one's plus the step in 16-byte units",
          "[emulation][wgmma]") {
  using tl::cuda::wgmma_descriptor;
  const unsigned top = 227 * 1024;
  int checked = 0, wrong = 0;
  for (unsigned start = 0; start < top; start += 1024 + 16)
    for (unsigned step = 0; start + step < top; step += 4096 + 32)
      for (int row_bytes : {32, 64, 128}) {
        const int leading = row_bytes == 128 ? 128 * 64 : 16, stride = 8 * row_bytes;
        const std::uint64_t first = wgmma_descriptor(start, leading, stride, row_bytes);
        const std::uint64_t moved = wgmma_descriptor(start + step, leading, stride, row_bytes);
        const std::uint32_t low = static_cast<std::uint32_t>(first) + step / 16;
        ++checked;
        if (moved != ((first >> 32) << 32 | low)) ++wrong;
      }
  CHECK(checked > 10000);
  CHECK(wrong == 0);
  // Past 256 KiB the field wraps where the added low word would carry: why the step is only taken
  // within the shared window.
  const std::uint64_t last = wgmma_descriptor(256 * 1024 - 16, 16, 1024, 128);
  CHECK(wgmma_descriptor(256 * 1024, 16, 1024, 128) != ((last >> 32) << 32 | (static_cast<std::uint32_t>(last) + 1)));
}

// ---------------------------------------------------------------------------------------------
// The copy engine (cuda/arch/tma.cuh): an [R, C] float tensor, a [4, 8] box of it at row 3,
// column 8 (its last four columns and last row outside), copied by thread 0 on an mbarrier.

namespace {

constexpr int R = 6, C = 12, box_rows = 4, box_cols = 8;

struct copy_seen {
  std::string error;
  float before_wait = 0;             // box[0] as thread 0 saw it before any wait
  std::vector<float> after_wait;     // the box as each thread saw its element after its wait
};

// `expected_bytes` the bytes thread 0 arms the barrier with; `parity` the phase the threads wait
// for; `column` the box's first column.
copy_seen copy_a_box(unsigned expected_bytes, unsigned parity, int column = 8) {
  static std::vector<float> tensor;
  tensor.resize(R * C);
  for (int i = 0; i < R * C; ++i) tensor[i] = 1.0f + static_cast<float>(i);
  alignas(128) static unsigned char map[128];
  struct box_key;
  struct barrier_key;
  struct staging_key;
  copy_seen seen;
  seen.after_wait.assign(box_rows * box_cols, NAN);
  tl::emulation::block block;
  seen.error = block.run({0, 0, 0}, {1, 1, 1}, 32, [&] {
    namespace arch = tl::cuda::arch;
    auto* box = reinterpret_cast<float*>(tl::cuda::shared_region<box_key, box_rows * box_cols * 4>());
    auto* bar = reinterpret_cast<std::uint64_t*>(tl::cuda::shared_region<barrier_key, 8>());
    arch::tensor_map_fields f{};
    f.base = tensor.data();
    f.rank = 2;
    f.element_bytes = 4;
    f.box[0] = box_cols;
    f.box[1] = box_rows;
    f.dims[0] = C;
    f.dims[1] = R;
    f.strides[0] = C * 4;
    arch::tensor_map_build(tl::cuda::shared_region<staging_key, 128>(), map, f);
    const int me = static_cast<int>(threadIdx.x);
    if (me == 0) {
      for (int i = 0; i < box_rows * box_cols; ++i) box[i] = -1.0f;
      arch::mbarrier_init(bar, 1);
      arch::mbarrier_arrive_expect_tx(bar, expected_bytes);
      arch::tma_load<2>(box, map, {column, 3}, bar);
      seen.before_wait = box[0];
    }
    __syncthreads();
    arch::mbarrier_wait_parity(bar, parity);
    seen.after_wait[me] = box[me];
  });
  return seen;
}

}  // namespace

TEST_CASE("an emulated tensor copy lands when a thread waits on its barrier, with zeros for the "
          "box's elements outside the tensor",
          "[emulation][tma]") {
  const copy_seen seen = copy_a_box(box_rows * box_cols * 4, 0);
  REQUIRE(seen.error.empty());
  CHECK(seen.before_wait == -1.0f);  // issued, not landed: no wait covered it yet
  for (int i = 0; i < box_rows * box_cols; ++i) {
    const int row = 3 + i / box_cols, col = 8 + i % box_cols;
    INFO("box element " << i);
    CHECK(seen.after_wait[i] == (row < R && col < C ? 1.0f + static_cast<float>(row * C + col) : 0.0f));
  }
}

TEST_CASE("a tensor copy whose first column is off the 16-byte grid is reported, as an H200 stops "
          "the kernel there, and negative coordinates are not",
          "[emulation][tma]") {
  CHECK_THAT(copy_a_box(box_rows * box_cols * 4, 0, 6).error,
             Catch::Contains("innermost coordinate is not at a multiple of 16 bytes (6 elements of 4 bytes)"));
  const copy_seen twin = copy_a_box(box_rows * box_cols * 4, 0, -4);
  INFO(twin.error);
  REQUIRE(twin.error.empty());
  for (int i = 0; i < box_rows * box_cols; ++i) {
    const int row = 3 + i / box_cols, col = -4 + i % box_cols;
    INFO("box element " << i);
    CHECK(twin.after_wait[i] == (row < R && col >= 0 ? 1.0f + static_cast<float>(row * C + col) : 0.0f));
  }
}

TEST_CASE("a flipped parity waits for the phase before, which is complete: the box is read before "
          "the copy lands",
          "[emulation][tma]") {
  const copy_seen seen = copy_a_box(box_rows * box_cols * 4, 1);
  INFO(seen.error);
  REQUIRE(seen.error.empty());
  for (float v : seen.after_wait) CHECK(v == -1.0f);
}

TEST_CASE("an mbarrier wait that nothing completes (more bytes expected than the copy brings) is "
          "reported, not hung",
          "[emulation][tma]") {
  const copy_seen seen = copy_a_box(2 * box_rows * box_cols * 4, 0);
  CHECK_THAT(seen.error, Catch::Contains("an mbarrier wait never completes: 32 of the block's 32 threads"));
}

TEST_CASE("descriptors whose strides the copy engine takes get tensor maps in the emulation, and "
          "the others none",
          "[emulation][tma][descriptor]") {
  // [10, 20] floats: rows of 80 bytes, so the descriptors of x and y (const: inputs) take the
  // copy engine, the 2-D, 1-D and 3-D ones; the transposed view (innermost stride 20) never does,
  // nor do z's (the output's, which only stores, never through the copy engine). A program past
  // maps_per_program: tests/kernels/ring.hpp makes a descriptor in a loop.
  using kernel = test_kernels::Descriptors<float, 10, 20, 4, 8, 4>;
  std::vector<tp::tensor> tensors;
  std::vector<float> x(kernel::tile), y(kernel::tile);
  for (int i = 0; i < kernel::tile; ++i) {
    x[i] = static_cast<float>(i % 17 - 8);
    y[i] = static_cast<float>(i % 13);
  }
  tensors.push_back({"x", {kernel::tile}, x, false});
  tensors.push_back({"y", {kernel::tile}, y, false});
  tensors.push_back({"z", {kernel::outputs}, std::vector<float>(kernel::outputs), true});
  tp::launch_request request;
  request.tensors = &tensors;
  request.sizes = {kernel::tile};
  REQUIRE(tp::emulated::launch<kernel>(request).empty());
  const auto maps = tl::cuda::launch_tensor_maps;
  REQUIRE(maps.base != nullptr);
  const auto* header = reinterpret_cast<const unsigned*>(maps.base);
  CHECK(header[0] == 0);  // released at the program's end, for the next launch
  CHECK(header[1] == 4u);
  for (float v : tensors[2].values) REQUIRE_FALSE(std::isnan(v));
}

namespace {

// RingMatmul with whole-number operands, run on the emulation with the ring's planted bug
// `mutation` (cuda/ring.cuh): what went wrong (the launch's error, or the elements where the
// pipelined loop differs from the plain one), empty where nothing did.
template <class Kernel>
std::string ring_with_mutation(int mutation) {
  std::vector<float> x(Kernel::tile), y(Kernel::tile);
  for (int i = 0; i < Kernel::tile; ++i) {
    x[i] = static_cast<float>(i * 7 % 33 - 16);
    y[i] = static_cast<float>(i * 5 % 31 - 15);
  }
  std::vector<tp::tensor> tensors;
  tensors.push_back({"x", {Kernel::tile}, x, false});
  tensors.push_back({"y", {Kernel::tile}, y, false});
  tensors.push_back({"z", {Kernel::outputs}, std::vector<float>(Kernel::outputs), true});
  tensors[0].dtype = tensors[1].dtype = tp::dtype_of<typename Kernel::operand>();
  tp::launch_request request;
  request.tensors = &tensors;
  request.sizes = {Kernel::kdim};
  tl::cuda::ring_mutation = mutation;
  const std::string error = tp::emulated::launch<Kernel>(request);
  tl::cuda::ring_mutation = 0;
  if (!error.empty()) return error;
  const auto& z = tensors[2].values;
  int wrong = 0;
  for (int i = 0; i < Kernel::pipelined_half; ++i) wrong += z[i] != z[i + Kernel::pipelined_half];
  return wrong == 0 ? std::string() : std::to_string(wrong) + " elements differ";
}

}  // namespace

TEST_CASE("a ring's planted bugs are caught: its full barrier waited for with the parity flipped, "
          "a slot refilled without waiting for its empty barrier, and the ring without them passes",
          "[emulation][tma][ring]") {
  using three_slots = test_kernels::RingMatmul<tl::float16, 3, 64, 64, 32, 4>;
  using two_slots = test_kernels::RingMatmul<tl::bfloat16, 2, 64, 32, 16, 4>;
  const long long read_before = tl::cuda::ring_slots_read;
  CHECK(ring_with_mutation<three_slots>(0).empty());
  CHECK(ring_with_mutation<two_slots>(0).empty());
  // Each thread read 6 iterations' slots of two sites in each kernel: the rings ran.
  CHECK(tl::cuda::ring_slots_read - read_before == 2 * 6 * 2 * 128);
  for (int mutation : {1, 2}) {
    INFO("mutation " << mutation);
    CHECK_FALSE(ring_with_mutation<three_slots>(mutation).empty());
    CHECK_FALSE(ring_with_mutation<two_slots>(mutation).empty());
  }
  // And once more without: nothing a failed run left behind changes the next.
  const long long read_after = tl::cuda::ring_slots_read;
  CHECK(ring_with_mutation<three_slots>(0).empty());
  CHECK(tl::cuda::ring_slots_read - read_after == 6 * 2 * 128);
}
