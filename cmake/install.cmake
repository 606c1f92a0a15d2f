# `tl` as a library (docs/tl.md, "Using `tl` in your own code"): `cmake --install build --prefix P`
# installs the language's headers, the simulator's runtime and a package configuration, so that
# another project's find_package(tilepuzzles CONFIG REQUIRED) gets
#   tilepuzzles::tl       the simulator backend: headers, Eigen, the runtime library and the one
#                         flag that keeps its results bit-exact (-ffp-contract=off); and, in a
#                         build with CUDA,
#   tilepuzzles::tl_cuda  the GPU backend for nvcc (headers, the CUDA runtime, nvcc's flags).
# The checker, the puzzles and their modules are not installed: a user's kernels need none of them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(tilepuzzles_install_include ${CMAKE_INSTALL_INCLUDEDIR}/tilepuzzles)
set(tilepuzzles_install_cmake ${CMAKE_INSTALL_LIBDIR}/cmake/tilepuzzles)

# The headers keep their paths (kernels include "tile/tl.hpp", the backends "simulator/...", as
# in this tree), under include/tilepuzzles/ so that those short paths live in a folder of their
# own.
target_include_directories(tl INTERFACE $<INSTALL_INTERFACE:${tilepuzzles_install_include}>)
install(DIRECTORY tile simulator DESTINATION ${tilepuzzles_install_include}
        FILES_MATCHING PATTERN "*.hpp")
set_target_properties(tl PROPERTIES EXPORT_NAME tl_headers)
set_target_properties(tilepuzzles_simulator PROPERTIES EXPORT_NAME tl)
install(TARGETS tl tilepuzzles_simulator EXPORT tilepuzzles_targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT tilepuzzles_targets NAMESPACE tilepuzzles:: FILE tilepuzzlesTargets.cmake
        DESTINATION ${tilepuzzles_install_cmake})

if(TILEPUZZLES_CUDA)
  # The GPU backend needs no Eigen (its half types are its own) and nothing compiled ahead: a
  # user's .cu file includes tile/tl.hpp and cuda/launch.cuh and nvcc builds the kernels.
  add_library(tilepuzzles_tl_cuda INTERFACE)
  target_include_directories(tilepuzzles_tl_cuda INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:${tilepuzzles_install_include}>)
  target_link_libraries(tilepuzzles_tl_cuda INTERFACE CUDA::cudart)
  # C++20 as a flag rather than a compile feature: CMake 3.25 does not know nvcc's C++20 mode
  # (see CMakeLists.txt), and a feature it does not know would fail the user's configure.
  target_compile_options(tilepuzzles_tl_cuda INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr>)
  set_target_properties(tilepuzzles_tl_cuda PROPERTIES EXPORT_NAME tl_cuda)
  install(DIRECTORY cuda DESTINATION ${tilepuzzles_install_include}
          FILES_MATCHING PATTERN "*.cuh" PATTERN "*.hpp")
  install(TARGETS tilepuzzles_tl_cuda EXPORT tilepuzzles_cuda_targets)
  install(EXPORT tilepuzzles_cuda_targets NAMESPACE tilepuzzles:: FILE tilepuzzlesCudaTargets.cmake
          DESTINATION ${tilepuzzles_install_cmake})
  set(tilepuzzles_installed_cuda_architectures "${CMAKE_CUDA_ARCHITECTURES}")
else()
  set(tilepuzzles_installed_cuda_architectures "")
endif()

configure_package_config_file(cmake/tilepuzzlesConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tilepuzzlesConfig.cmake INSTALL_DESTINATION ${tilepuzzles_install_cmake})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilepuzzlesConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilepuzzlesConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tilepuzzlesConfigVersion.cmake
        DESTINATION ${tilepuzzles_install_cmake})
