// The GPU interface in a build without the CUDA backend.
#include "checker/gpu.hpp"

namespace tp::gpu {

bool built_with_cuda() { return false; }

device_status probe() {
  return {false,
          "this build of tilepuzzles has no CUDA backend (it was configured with "
          "TILEPUZZLES_CUDA=OFF, or without nvcc). On a machine with the CUDA toolkit and an "
          "NVIDIA GPU, configure with -DTILEPUZZLES_CUDA=ON and rebuild; without --gpu "
          "everything runs in the simulator.",
          "this build of tilepuzzles has no CUDA backend (it was configured with "
          "TILEPUZZLES_CUDA=OFF, or without nvcc)"};
}

std::string initialize() { return "this build of tilepuzzles has no CUDA backend"; }

}  // namespace tp::gpu
