# The puzzles of checker/puzzle_list.def, for CMake: one line each,
#   TP_PUZZLE(number, stem, "id", "title", gpu|simulator, points, "what it teaches")
# read into lists in curriculum order (the same index in each):
#   tilepuzzles_list_stems, tilepuzzles_list_ids, tilepuzzles_list_backends
# The file is a configure dependency: a line added or changed reconfigures the build.
set(tilepuzzles_puzzle_list ${CMAKE_CURRENT_LIST_DIR}/../checker/puzzle_list.def)
get_filename_component(tilepuzzles_puzzle_list ${tilepuzzles_puzzle_list} ABSOLUTE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${tilepuzzles_puzzle_list})

set(tilepuzzles_list_stems)
set(tilepuzzles_list_ids)
set(tilepuzzles_list_backends)
file(STRINGS ${tilepuzzles_puzzle_list} tilepuzzles_list_lines REGEX "^TP_PUZZLE\\(")
set(tilepuzzles_expected_number 1)
foreach(line IN LISTS tilepuzzles_list_lines)
  if(NOT line MATCHES "^TP_PUZZLE\\(([0-9]+), *([a-z0-9_]+), *\"([a-z0-9-]+)\", *\"[^\"]*\", *(gpu|simulator), *[0-9]+, *\"[^\"]*\"\\)$")
    message(FATAL_ERROR "checker/puzzle_list.def: this line is not of the list's form "
            "TP_PUZZLE(number, stem, \"id\", \"title\", gpu|simulator, points, \"teaches\"):\n${line}")
  endif()
  if(NOT CMAKE_MATCH_1 EQUAL tilepuzzles_expected_number)
    message(FATAL_ERROR "checker/puzzle_list.def: puzzle ${CMAKE_MATCH_2} is numbered "
            "${CMAKE_MATCH_1} where ${tilepuzzles_expected_number} comes next")
  endif()
  math(EXPR tilepuzzles_expected_number "${tilepuzzles_expected_number} + 1")
  list(APPEND tilepuzzles_list_stems ${CMAKE_MATCH_2})
  list(APPEND tilepuzzles_list_ids ${CMAKE_MATCH_3})
  list(APPEND tilepuzzles_list_backends ${CMAKE_MATCH_4})
endforeach()
