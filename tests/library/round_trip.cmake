# `tl` as a library, end to end: this build installed into a fresh prefix, the example project
# (examples/row_axpy) configured against it with find_package(tilepuzzles), its simulator test
# built and run. That test passes the correct kernel and catches a planted out-of-bounds twin.
# Kept cheap for CI: the example's GPU program is left out (ROW_AXPY_GPU=OFF; the example's .cu
# is compiled by GPU_EXAMPLE=ON, a test of its own) and its test built at -O1.
#   cmake -DBINARY_DIR=... -DSOURCE_DIR=... -DWORK=... -DGENERATOR=... [-DGPU_EXAMPLE=ON]
#         [-DCXX_COMPILER=... -DCXX_FLAGS=...] -P round_trip.cmake
# CXX_COMPILER and CXX_FLAGS are the installed build's: a library built with clang and libc++ is
# used from a project built the same way.
foreach(variable BINARY_DIR SOURCE_DIR WORK GENERATOR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "round_trip.cmake needs -D${variable}=...")
  endif()
endforeach()

set(prefix ${WORK}/prefix)
set(example ${WORK}/row_axpy)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(step what)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}")
  endif()
  message("${what}: ${seconds} s")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cmake --install into ${prefix}" ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
# Nothing of the checker or the puzzles goes with the library.
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
foreach(file IN LISTS installed)
  if(file MATCHES "(^|/)(checker|puzzles|solutions|modules)/|tilepuzzles_checker")
    message(FATAL_ERROR "the install holds ${file}, which is not part of the library")
  endif()
endforeach()

if(GPU_EXAMPLE)
  set(target row_axpy_gpu)
  set(gpu ON)
else()
  set(target row_axpy_test)
  set(gpu OFF)
endif()
set(same_compiler)
if(CXX_COMPILER)
  set(same_compiler -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
endif()
# The prefix alone: the example must not find this build tree's headers by accident.
step("configure examples/row_axpy against it" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/row_axpy
     -B ${example} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DROW_AXPY_GPU=${gpu}
     ${same_compiler})
if(GPU_EXAMPLE AND NOT step_output MATCHES "Check for working CUDA compiler")
  message(FATAL_ERROR "the example did not enable CUDA:\n${step_output}")
endif()
step("build ${target}" ${CMAKE_COMMAND} --build ${example} --target ${target})
# The headers the example compiled with came from the prefix, never from this tree.
file(READ ${example}/compile_commands.json commands)
string(FIND "${commands}" "${prefix}/include/tilepuzzles" from_prefix)
string(FIND "${commands}" "I${SOURCE_DIR} " from_tree)
string(FIND "${commands}" "isystem ${SOURCE_DIR} " from_tree_system)
if(from_prefix EQUAL -1 OR NOT from_tree EQUAL -1 OR NOT from_tree_system EQUAL -1)
  message(FATAL_ERROR "the example should include tl from ${prefix}/include/tilepuzzles only:\n"
                      "${commands}")
endif()
if(NOT GPU_EXAMPLE)
  step("run row_axpy_test" ${example}/row_axpy_test)
  message("${step_output}")
endif()
