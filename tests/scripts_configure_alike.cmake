# scripts/check.sh and scripts/test.sh configure build/ the same way, whichever runs first: both
# leave it to scripts/configure.sh before they build, and neither configures on its own.
# cmake -DSOURCE_DIR=... -P scripts_configure_alike.cmake
foreach(script check.sh test.sh)
  file(READ ${SOURCE_DIR}/scripts/${script} text)
  string(FIND "${text}" "bash scripts/configure.sh" configure)
  string(FIND "${text}" "cmake --build build" build)
  if(configure EQUAL -1 OR build EQUAL -1 OR build LESS configure)
    message(FATAL_ERROR "scripts/${script} must run scripts/configure.sh before it builds")
  endif()
  if(text MATCHES "cmake -S" OR text MATCHES "cmake -B")
    message(FATAL_ERROR "scripts/${script} configures on its own: leave it to scripts/configure.sh")
  endif()
endforeach()
file(READ ${SOURCE_DIR}/scripts/configure.sh text)
if(NOT text MATCHES "CMakeCache.txt")
  message(FATAL_ERROR "scripts/configure.sh must keep an existing build/")
endif()
