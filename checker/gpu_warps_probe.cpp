// Prints the num_warps of each configuration a puzzle's GPU module builds, one line per
// configuration in the binding's order. The module's compiler launcher (cmake/compile-logged.sh)
// compiles this with the host compiler and the module's own definitions, runs it, and builds the
// module once per warp count it prints: tl's GPU layouts depend on the warps, so tl is built for
// one count per translation unit (tile/config.hpp), and a kernel may choose its count per block
// size (`num_warps = B1 >= 4096 ? 16 : 4`). Compiled against the GPU backend's host emulation:
// the kernel as nvcc sees it, without nvcc's cost; only the kernels' classes are instantiated,
// never their bodies.
#include <cstdio>

#include "checker/binding.hpp"
#include TILEPUZZLES_BINDING_HEADER
#include TILEPUZZLES_KERNEL_FILE

namespace {

using binding = tp::bindings::TILEPUZZLES_BINDING;

#if TILEPUZZLES_IMPL_STUB
template <class Blocks>
using kernel_for = typename binding::template stub<Blocks>;
#else
template <class Blocks>
using kernel_for = typename binding::template solution<Blocks>;
#endif

template <class... Blocks>
void print_warps(tp::block_list<Blocks...>) {
  (std::printf("%d\n", static_cast<int>(kernel_for<Blocks>::num_warps)), ...);
}

}  // namespace

int main() { print_warps(binding::configs{}); }
