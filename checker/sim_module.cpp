// One puzzle's kernel, the learner's stub or the reference solution, built for the simulator as a
// module of its own (a shared library the checker loads with dlopen). CMake compiles this file
// once per puzzle and implementation (cmake/puzzle_modules.cmake) with:
//   TILEPUZZLES_BINDING         the binding struct, e.g. vector_add (checker/specs/vector_add.hpp)
//   TILEPUZZLES_BINDING_HEADER  "checker/specs/vector_add.hpp"
//   TILEPUZZLES_KERNEL_FILE     the absolute path of the stub or solution
//   TILEPUZZLES_IMPL_STUB or TILEPUZZLES_IMPL_SOLUTION
//
// A stub's compile is most of the learner's loop, and most of a compile is the code generated for
// each configuration's kernel (the simulator's templates instantiated for its block sizes). So the
// module's compiler launcher (cmake/compile-logged.sh, --shards) may compile this file as several
// units at once, one per core, each with
//   TILEPUZZLES_MODULE_SHARDS   how many units (1 to 4; 1, the default, is one unit as before)
//   TILEPUZZLES_MODULE_SHARD    which of them this is (0 to SHARDS - 1)
// Unit s instantiates the s-th of SHARDS runs of consecutive configurations (i * SHARDS / count
// == s), and unit 0 also the module's entry point, which gathers them; the launcher joins the units into the one object the build asked for.
#include <cstddef>
#include <utility>

#include "checker/sim_launch.hpp"

#include "checker/module_source.inc"

#ifndef TILEPUZZLES_MODULE_SHARDS
#define TILEPUZZLES_MODULE_SHARDS 1
#endif
#ifndef TILEPUZZLES_MODULE_SHARD
#define TILEPUZZLES_MODULE_SHARD 0
#endif
static_assert(TILEPUZZLES_MODULE_SHARDS >= 1 && TILEPUZZLES_MODULE_SHARDS <= 4 &&
                  TILEPUZZLES_MODULE_SHARD >= 0 &&
                  TILEPUZZLES_MODULE_SHARD < TILEPUZZLES_MODULE_SHARDS,
              "cmake/compile-logged.sh compiles a simulator module as 1 to 4 units");

namespace tp::module_source {

// Fills in kernels[i] for each configuration i of unit Shard; defined by that unit. Declared
// (not defined) for every unit, so that the entry unit calls the others' without instantiating
// their kernels.
template <int Shard>
void add_kernels_of_shard(module_kernel* kernels);
template <>
void add_kernels_of_shard<0>(module_kernel*);
template <>
void add_kernels_of_shard<1>(module_kernel*);
template <>
void add_kernels_of_shard<2>(module_kernel*);
template <>
void add_kernels_of_shard<3>(module_kernel*);

// Only this unit's configurations are instantiated: the others are discarded at compile time.
// Consecutive ones, because neighbours in a binding's list share block sizes, whose simulator code
// (the tiles' shapes) a unit then generates once: flash attention's two units took 4.3 s of CPU
// each this way, 4.6 s each with every other configuration.
template <class... Blocks, std::size_t... Index>
void add_kernels_of_this_shard(module_kernel* kernels, block_list<Blocks...>,
                               std::index_sequence<Index...>) {
  (
      [&] {
        if constexpr (Index * TILEPUZZLES_MODULE_SHARDS / sizeof...(Blocks) == TILEPUZZLES_MODULE_SHARD)
          kernels[Index] = make_module_kernel<Blocks>(
              reinterpret_cast<void (*)()>(&tp::sim_launch<kernel_for<Blocks>>));
      }(),
      ...);
}

template <class... Blocks>
void add_kernels_of_this_shard(module_kernel* kernels, block_list<Blocks...> configs) {
  add_kernels_of_this_shard(kernels, configs, std::index_sequence_for<Blocks...>{});
}

template <>
void add_kernels_of_shard<TILEPUZZLES_MODULE_SHARD>(module_kernel* kernels) {
  add_kernels_of_this_shard(kernels, binding::configs{});
}

#if TILEPUZZLES_MODULE_SHARD == 0
template <class... Blocks>
module_info make_module(block_list<Blocks...> configs) {
  check_signatures(configs);
  static module_kernel kernels[sizeof...(Blocks)];
  [&]<int... Shard>(std::integer_sequence<int, Shard...>) {
    (add_kernels_of_shard<Shard>(kernels), ...);
  }(std::make_integer_sequence<int, TILEPUZZLES_MODULE_SHARDS>{});
  return describe(kernels, static_cast<int>(sizeof...(Blocks)), "simulator");
}
#endif

}  // namespace tp::module_source

#if TILEPUZZLES_MODULE_SHARD == 0
extern "C" __attribute__((visibility("default"))) const tp::module_info* tilepuzzles_module() {
  static const tp::module_info info = tp::module_source::make_module(tp::module_source::binding::configs{});
  return &info;
}
#endif
