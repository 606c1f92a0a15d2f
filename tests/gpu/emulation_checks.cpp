// The host emulation of the CUDA pieces the GPU backend uses (cuda/host_emulation.hpp) does what
// a GPU does where the parity tests rely on it, and reports a barrier that not every thread of a
// block reaches instead of hanging.
#define TL_EMULATED_GPU 1
#include "cuda/host_emulation.hpp"
#include "cuda/shared_arena.cuh"
#include "cuda/wgmma.cuh"

#include <catch2/catch.hpp>

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
