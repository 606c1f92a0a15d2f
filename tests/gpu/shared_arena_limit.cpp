// The kernel's shared-memory arena on a GPU (cuda/shared_arena.cuh): a kernel whose buffers pass
// the 48 KiB of static shared memory runs, and one whose buffers pass what the GPU gives a block is
// refused at launch with both sizes and what to change (tests/gpu/shared_arena.cu).
#include <catch2/catch.hpp>

#include <string>

namespace tp::gpu_tests {
std::string run_conversions_within_a_block();
std::string run_conversions_past_a_block();
}  // namespace tp::gpu_tests

TEST_CASE("a kernel with 165 KiB of shared buffers runs in its arena and gives the right result",
          "[gpu][arena]") {
  CHECK(tp::gpu_tests::run_conversions_within_a_block() == "");
}

TEST_CASE("a kernel whose shared buffers pass what the GPU gives a block is refused at launch, "
          "saying so",
          "[gpu][arena]") {
  const std::string error = tp::gpu_tests::run_conversions_past_a_block();
  INFO(error);
  CHECK_THAT(error, Catch::Matches("the kernel needs 24[0-9] KiB of shared memory per program .*"));
  CHECK(error.find("this GPU gives a block at most") != std::string::npos);
  CHECK(error.find("use smaller blocks, or fewer stages in tl::range") != std::string::npos);
}
