# Each puzzle is its own build unit: its stub and its solution compile into separate modules
# (shared libraries that the checker loads with dlopen), so a stub that does not compile costs
# only its own puzzle. docs/ARCHITECTURE.md ("Puzzle modules") explains the design.
#
#   tilepuzzles_puzzle(STEM ID gpu|simulator)
#
# declares the puzzle whose files are puzzles/STEM.hpp, solutions/STEM.hpp and
# checker/specs/STEM.hpp (its binding), called for each line of checker/puzzle_list.def
# (cmake/puzzle_list.cmake). gpu means the CUDA backend runs its kernels: the one switch per puzzle
# that turns on its GPU modules (only in builds with TILEPUZZLES_CUDA).
#
# Module targets and files, for STEM and IMPL (stub or solution):
#   tilepuzzles_STEM_IMPL       modules/STEM.IMPL.so      (the simulator, g++)
#   tilepuzzles_STEM_IMPL_gpu   modules/STEM.IMPL.gpu.so  (the GPU, nvcc)
# next to each: .log (the compiler's messages), .status, .deps and .source (cmake/compile-logged.sh),
# and .sha256, the hash of the module as linked (cmake/record-module-hash.cmake). The checker
# (checker/modules.cpp) builds a module through these targets before it loads it, and loads only
# a module whose bytes have the recorded hash.
#
# A stub's compile goes through the launcher with --sandbox: when the checker asks for it (the
# TILEPUZZLES_SANDBOX variables in the build's environment, checker/sandbox.hpp), the compiler
# runs inside bubblewrap and sees only the headers, the stub's directory and its own outputs.
#
# Solution modules are part of `all` (the project's own code must always compile); stub modules
# are not: a learner's stub that does not compile must not break `cmake --build`. The checker
# builds them when it checks them.

set(tilepuzzles_module_dir ${CMAKE_BINARY_DIR}/modules)
file(MAKE_DIRECTORY ${tilepuzzles_module_dir})

# The directory of the stubs this build checks: puzzles/ of this tree, or a student's copy for a
# grading build. `tilepuzzles check --puzzles DIR` checks another directory without reconfiguring.
set(TILEPUZZLES_PUZZLES_DIR ${PROJECT_SOURCE_DIR}/puzzles CACHE PATH
    "The directory of the stubs (the learner's puzzles) this build checks")
get_filename_component(tilepuzzles_puzzles_dir "${TILEPUZZLES_PUZZLES_DIR}" ABSOLUTE)

# Puzzle modules are compiled with -O1: it halves the compile of a kernel (the learner's loop is
# mostly that compile) against -O3. Three passes are added back, because the simulator's bulk
# paths (simulator/batch.hpp, simulator/backend.hpp) are templates compiled into each module:
# -ftree-vectorize turns their loops over lanes into vector code, -fstrict-aliasing lets it (a
# float store then cannot change the pointers it reads through), and -finline-small-functions
# inlines their per-lane functors. Without them the large workloads run 2 to 3 times slower; with
# them the compile costs about what it did (docs/ARCHITECTURE.md has the figures). -O2 would not
# do: its vectorizer's "very cheap" cost model leaves these loops scalar. The floating-point
# results are the same bits at any level: no fast-math, no FMA contraction (-ffp-contract=off),
# and the vectorizer never reassociates a float sum without -ffast-math.
set(tilepuzzles_module_optimization -O1 -fstrict-aliasing -ftree-vectorize)
# GCC's pass; clang has no such flag (its -O1 inlines small functions already).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND tilepuzzles_module_optimization -finline-small-functions)
endif()
set(tilepuzzles_module_flags ${tilepuzzles_module_optimization} -fvisibility=hidden)

# The headers every simulator module compiles, precompiled once: the tile language, the simulator
# and the checker's launcher. REUSE_FROM needs the same flags, so this target is a module like the
# others (its source is empty). A modules-only build of another puzzles directory uses the main
# build's (the same compiler, flags and headers): each student's copy would otherwise compile its
# own, which takes longer than most of its modules.
if(TILEPUZZLES_MODULES_ONLY)
  get_filename_component(tilepuzzles_main_build "${TILEPUZZLES_RUNTIME}" DIRECTORY)
  set(tilepuzzles_main_pch
      ${tilepuzzles_main_build}/CMakeFiles/tilepuzzles_module_pch.dir/cmake_pch.hxx)
  # g++ finds cmake_pch.hxx.gch beside the header it is told to include, clang cmake_pch.hxx.pch.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(tilepuzzles_pch_suffix .pch)
  else()
    set(tilepuzzles_pch_suffix .gch)
  endif()
  if(NOT EXISTS ${tilepuzzles_main_pch}${tilepuzzles_pch_suffix})
    message(FATAL_ERROR "${tilepuzzles_main_pch}${tilepuzzles_pch_suffix} is missing: build the "
                        "main build's tilepuzzles_module_pch first")
  endif()
  # The compiler's depfile lists none of the headers read through it: a module is rebuilt when
  # the main build's precompiled header is, that is, when one of them changed.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/checker/sim_module.cpp PROPERTIES
                              OBJECT_DEPENDS ${tilepuzzles_main_pch}${tilepuzzles_pch_suffix})
else()
  add_library(tilepuzzles_module_pch MODULE ${PROJECT_SOURCE_DIR}/checker/module_pch.cpp)
  target_link_libraries(tilepuzzles_module_pch PRIVATE tilepuzzles_simulator)
  target_compile_options(tilepuzzles_module_pch PRIVATE ${tilepuzzles_module_flags})
  target_precompile_headers(tilepuzzles_module_pch PRIVATE
    <cmath> <limits> <tuple> <utility> <vector>
    ${PROJECT_SOURCE_DIR}/checker/module_abi.hpp
    ${PROJECT_SOURCE_DIR}/checker/sim_launch.hpp)
  # No <target>_EXPORTS macro: it would differ between this target and the modules, and g++ uses a
  # precompiled header only where the macros defined before it are the same.
  set_target_properties(tilepuzzles_module_pch PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${tilepuzzles_module_dir}/pch DEFINE_SYMBOL "")
endif()

# A stub's simulator module is compiled as this many units at once (cmake/compile-logged.sh
# --shards; at most one per core, at most 4): unit s instantiates the s-th of N runs of consecutive
# configurations. The learner's loop is mostly that compile, and most of a compile is each configuration's
# code generation, so on two cores two units take about the time of the larger one (flash
# attention's four configurations, matmul-int4's two: docs/ARCHITECTURE.md has the figures). Each
# unit parses the headers again (about 1 s of CPU), which is why the solution modules, built
# beside the rest of `all`, stay one unit.
set(TILEPUZZLES_STUB_MODULE_UNITS 2 CACHE STRING
    "Units a stub's simulator module is compiled as, at once (1 to 4, at most one per core)")

# A module's compile runs the launcher (and a GPU module's its probe): rebuilt when either changes.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/checker/sim_module.cpp APPEND PROPERTY OBJECT_DEPENDS
  ${PROJECT_SOURCE_DIR}/cmake/compile-logged.sh)
# A GPU module's compile runs the launcher and its probe: rebuilt when either changes.
set_source_files_properties(${PROJECT_SOURCE_DIR}/checker/gpu_module.cu PROPERTIES OBJECT_DEPENDS
  "${PROJECT_SOURCE_DIR}/cmake/compile-logged.sh;${PROJECT_SOURCE_DIR}/checker/gpu_warps_probe.cpp")

function(tilepuzzles_module stem impl backend)
  if(impl STREQUAL "stub")
    set(kernel_file ${tilepuzzles_puzzles_dir}/${stem}.hpp)
  else()
    set(kernel_file ${PROJECT_SOURCE_DIR}/solutions/${stem}.hpp)
  endif()
  set(target tilepuzzles_${stem}_${impl})
  set(name ${stem}.${impl})
  if(backend STREQUAL "gpu")
    string(APPEND target _gpu)
    string(APPEND name .gpu)
    set(source ${PROJECT_SOURCE_DIR}/checker/gpu_module.cu)
    set(language CUDA)
  else()
    set(source ${PROJECT_SOURCE_DIR}/checker/sim_module.cpp)
    set(language CXX)
  endif()
  add_library(${target} MODULE ${source})
  string(TOUPPER ${impl} impl_upper)
  # Its line of checker/puzzle_list.def (checker/binding.hpp): the module does not include the
  # list, so a line added for another puzzle rebuilds no module of this one.
  list(FIND tilepuzzles_list_stems ${stem} index)
  list(GET tilepuzzles_list_ids ${index} id)
  math(EXPR number "${index} + 1")
  target_compile_definitions(${target} PRIVATE
    TILEPUZZLES_PUZZLE_ID="${id}"
    TILEPUZZLES_PUZZLE_NUMBER=${number}
    TILEPUZZLES_BINDING=${stem}
    TILEPUZZLES_BINDING_HEADER="checker/specs/${stem}.hpp"
    TILEPUZZLES_KERNEL_FILE="${kernel_file}"
    TILEPUZZLES_IMPL_${impl_upper}=1)
  set(launcher sh ${PROJECT_SOURCE_DIR}/cmake/compile-logged.sh)
  if(impl STREQUAL "stub")
    list(APPEND launcher --sandbox)
  endif()
  list(APPEND launcher ${tilepuzzles_module_dir}/${name} ${kernel_file})
  if(impl STREQUAL "stub" AND backend STREQUAL "simulator")
    list(APPEND launcher --shards ${TILEPUZZLES_STUB_MODULE_UNITS})
  endif()
  if(backend STREQUAL "gpu")
    # tl is built for the warps per program (TL_NUM_WARPS): the launcher compiles the module once
    # per count its configurations use, which a host-compiled probe of the kernel file prints.
    list(APPEND launcher --num-warps-of-kernel ${CMAKE_CXX_COMPILER}
         ${PROJECT_SOURCE_DIR}/checker/gpu_warps_probe.cpp)
  endif()
  set_target_properties(${target} PROPERTIES
    DEFINE_SYMBOL ""
    PREFIX ""
    OUTPUT_NAME ${name}
    LIBRARY_OUTPUT_DIRECTORY ${tilepuzzles_module_dir}
    ${language}_COMPILER_LAUNCHER "${launcher}")
  if(backend STREQUAL "gpu")
    target_link_libraries(${target} PRIVATE tl)
    target_compile_options(${target} PRIVATE
      --expt-relaxed-constexpr -Xcompiler=-Wall -Xcompiler=-fvisibility=hidden)
    # One CUDA runtime per process, shared with the program's probe (checker/gpu_probe.cpp).
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  else()
    target_link_libraries(${target} PRIVATE tilepuzzles_simulator)
    # Only the entry point is exported (-fvisibility=hidden); the kernels' own symbols stay inside.
    target_compile_options(${target} PRIVATE ${tilepuzzles_module_flags})
    if(TARGET tilepuzzles_module_pch)
      target_precompile_headers(${target} REUSE_FROM tilepuzzles_module_pch)
    elseif(tilepuzzles_main_pch)
      target_compile_options(${target} PRIVATE -Winvalid-pch -include ${tilepuzzles_main_pch})
    endif()
  endif()
  if(impl STREQUAL "stub")
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
  elseif(backend STREQUAL "gpu" AND NOT (TILEPUZZLES_GPU_TESTS OR tilepuzzles_gpu_found)
         AND NOT stem IN_LIST tilepuzzles_gpu_solution_modules_in_all)
    # No GPU to run it here: `check --gpu` builds this module when it needs it.
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DMODULE=$<TARGET_FILE:${target}>
            -DRECORD=${tilepuzzles_module_dir}/${name}.sha256
            -P ${PROJECT_SOURCE_DIR}/cmake/record-module-hash.cmake
    VERBATIM)
endfunction()

# The GPU solution modules a build without a GPU still compiles, so that no path of the CUDA
# backend can rot unseen (with the GPU tests' kernels, tests/gpu/kernels.cu, compiled for 4 warps):
# the module's own code (its launcher, the warp-count probe, one unit per warp count) in each;
# dot on wgmma with 8 warps (flash attention), exact fp32 dot on FFMA (matmul), int32 tiles and
# shifts (matmul-int4), reductions with the solution's own warp count, 1 to 16 (the fused and the
# 2-loop softmax), a 3-D grid and loops over run-time sizes (conv2d). The other puzzles use no
# operation these and the test kernels do not.
set(tilepuzzles_gpu_solution_modules_in_all
    flash_attention matmul matmul_int4 softmax_fused long_softmax_2loop conv2d)

function(tilepuzzles_puzzle stem id backend)
  set_property(GLOBAL APPEND PROPERTY tilepuzzles_puzzle_ids ${id})
  set_property(GLOBAL APPEND PROPERTY tilepuzzles_puzzle_stems ${stem})

  foreach(impl stub solution)
    if(NOT (TILEPUZZLES_MODULES_ONLY AND impl STREQUAL "solution"))
      tilepuzzles_module(${stem} ${impl} simulator)
    endif()
  endforeach()
  if(backend STREQUAL "gpu")
    set_property(GLOBAL APPEND PROPERTY tilepuzzles_gpu_ids ${id})
    if(TILEPUZZLES_CUDA)
      foreach(impl stub solution)
        if(NOT (TILEPUZZLES_MODULES_ONLY AND impl STREQUAL "solution"))
          tilepuzzles_module(${stem} ${impl} gpu)
        endif()
      endforeach()
    endif()
  endif()
endfunction()
