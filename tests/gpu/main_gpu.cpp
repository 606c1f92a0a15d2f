// The GPU parity tests on a GPU. Without one, they say why and exit with 77, which ctest reports
// as skipped (never as passed, never as failed).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <string>

#include "checker/gpu.hpp"

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string(argv[i]).rfind("--list", 0) == 0;
  if (!listing) {
    const auto gpu = tp::gpu::probe();
    if (!gpu.available) {
      std::cout << "skipped: the GPU parity tests need an NVIDIA GPU: " << gpu.description << "\n";
      return 77;
    }
    std::cout << "running on " << gpu.description << "\n";
  }
  return Catch::Session().run(argc, argv);
}
