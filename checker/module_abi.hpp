// What a puzzle module exports: the kernel instantiations of one puzzle's stub or solution, built
// for the simulator (checker/sim_module.cpp, g++) or the GPU (checker/gpu_module.cu, nvcc), and
// loaded by the checker with dlopen (checker/modules.cpp). Plain data, so that both compilers
// agree on its layout.
#pragma once

namespace tp {

// Bumped whenever this struct, launch_request, sim_outcome, tl::sim::launch_options,
// tl::sim::context or a launcher's signature changes: a module built against another version is refused rather than
// called.
inline constexpr int module_abi_version = 7;

// The name of the one function a module exports: `const tp::module_info* tilepuzzles_module()`.
inline constexpr const char* module_entry_point = "tilepuzzles_module";

struct module_kernel {
  static constexpr int max_blocks = 8;
  int block_count = 0;
  int blocks[max_blocks] = {};
  int dtype = 0;  // the kernel's element type, a tp::dtype (typed_blocks), float32 otherwise
  // A tp::sim_launcher in a simulator module, a tp::gpu::launcher in a GPU module.
  void (*launch)() = nullptr;
};

struct module_info {
  int abi_version = 0;
  const char* puzzle_id = "";
  const char* impl = "";     // "stub" or "solution"
  const char* backend = "";  // "simulator" or "gpu"
  int kernel_count = 0;
  const module_kernel* kernels = nullptr;
};

// Fills a module_kernel table from a binding's block_list: one entry per set of block sizes,
// `launch_of<Blocks>()` giving the launcher.
template <class Blocks>
module_kernel make_module_kernel(void (*launch)()) {
  module_kernel k;
  const auto values = Blocks::values();
  k.block_count = static_cast<int>(values.size());
  for (int i = 0; i < k.block_count && i < module_kernel::max_blocks; ++i) k.blocks[i] = values[i];
  k.dtype = static_cast<int>(Blocks::dtype);
  k.launch = launch;
  return k;
}

}  // namespace tp
