// A kernel's min_blocks_per_multiprocessor (cuda/launch.cuh) on a GPU: the same product,
// whose accumulator alone takes 128 registers per thread, over 128 registers without it and
// within 128 (two 256-thread blocks per multiprocessor) with 2, right either way.
#include <catch2/catch.hpp>

#include "tests/gpu/launch_bounds.hpp"

TEST_CASE("min_blocks_per_multiprocessor = 2 keeps an 8-warp kernel within 128 registers, with "
          "the same results",
          "[gpu][launch-bounds]") {
  const auto unbounded = tp::gpu_tests::run_wide_product(false);
  INFO(unbounded.error);
  REQUIRE(unbounded.error.empty());
  CHECK(unbounded.registers > 128);

  const auto bounded = tp::gpu_tests::run_wide_product(true);
  INFO(bounded.error);
  REQUIRE(bounded.error.empty());
  CHECK(bounded.registers <= 128);
  CHECK(bounded.blocks_per_multiprocessor >= 2);
}
