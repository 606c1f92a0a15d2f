# Grading with ctest: one test per puzzle, named PREFIX<id> and labelled LABEL, that runs
# `tilepuzzles check <id> --report-only` and passes when that puzzle's kernel is solved. A stub
# that does not compile fails its own test, with the short compile-error report in the test's
# output; no test's output carries a learner's advice or progress. The stubs are compiled and run
# in the sandbox (where none can be made, check says so and goes on without one: use
# `tilepuzzles grade`, which refuses, to grade untrusted copies).
#
#   tilepuzzles_add_grade_tests(PREFIX grade_ LABEL grade [PUZZLES_DIR dir])
#
# Without PUZZLES_DIR the tests check the stubs this build was configured with
# (TILEPUZZLES_PUZZLES_DIR); with it, `--puzzles dir`.
function(tilepuzzles_add_grade_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "PREFIX;LABEL;PUZZLES_DIR" "")
  get_property(ids GLOBAL PROPERTY tilepuzzles_puzzle_ids)
  foreach(id IN LISTS ids)
    set(command $<TARGET_FILE:tilepuzzles> check ${id} --report-only)
    if(arg_PUZZLES_DIR)
      list(APPEND command --puzzles ${arg_PUZZLES_DIR})
    endif()
    add_test(NAME ${arg_PREFIX}${id} COMMAND ${command})
    set_tests_properties(${arg_PREFIX}${id} PROPERTIES LABELS ${arg_LABEL})
  endforeach()
endfunction()
