# A student's copy of the puzzles, for the grading-route tests (tests/CMakeLists.txt):
#   every puzzle      the reference solution in the stubs' namespace: solved
#   BROKEN            the same with the ';' of its first statement missing: does not compile
#   CHEAT             includes the reference solution: refused
# cmake -DSOURCE_DIR=... -DOUT=... -DSTEMS=a,b,c -DBROKEN=stem -DCHEAT=stem -P make_student_copy.cmake
file(MAKE_DIRECTORY ${OUT})
string(REPLACE "," ";" stems "${STEMS}")

# Writes only what changed, so that a rerun does not recompile for nothing.
function(write_if_changed path text)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE ${path} "${text}")
endfunction()

foreach(stem IN LISTS stems)
  file(READ ${SOURCE_DIR}/solutions/${stem}.hpp text)
  string(REPLACE "namespace solutions {" "namespace puzzles {" text "${text}")
  string(REPLACE "}  // namespace solutions" "}  // namespace puzzles" text "${text}")
  if(stem STREQUAL BROKEN)
    string(FIND "${text}" "auto rows = " at)
    if(at EQUAL -1)
      string(FIND "${text}" "auto offsets = " at)
    endif()
    string(SUBSTRING "${text}" 0 ${at} head)
    string(SUBSTRING "${text}" ${at} -1 tail)
    string(FIND "${tail}" ";\n" semicolon)
    string(SUBSTRING "${tail}" 0 ${semicolon} statement)
    math(EXPR rest "${semicolon} + 1")
    string(SUBSTRING "${tail}" ${rest} -1 after)
    set(text "${head}${statement}${after}")
  elseif(stem STREQUAL CHEAT)
    file(READ ${SOURCE_DIR}/solutions/${stem}.hpp solution)
    string(REGEX MATCH "template <([^>]*)>[ \n]*struct ([A-Za-z0-9_]+)" _ "${solution}")
    set(parameters "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    string(REGEX REPLACE "int " "" arguments "${parameters}")
    set(text "#pragma once\n#include \"tile/tl.hpp\"\n#include \"solutions/${stem}.hpp\"\n\n"
             "namespace puzzles {\ntemplate <${parameters}>\n"
             "struct ${name} : solutions::${name}<${arguments}> {};\n}  // namespace puzzles\n")
  endif()
  write_if_changed(${OUT}/${stem}.hpp "${text}")
endforeach()
