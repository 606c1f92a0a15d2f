# Runs the grading-route tests the way an instructor runs `ctest -L grade --output-junit`, and
# checks the JUnit file: one testcase per puzzle, and the short compile-error report in the output
# of the puzzle that does not compile.
# cmake -DCTEST=... -DTEST_DIR=... -DJUNIT=... -DBROKEN_ID=... -DCHEAT_ID=... -DIDS=a,b -P check_junit.cmake
file(REMOVE ${JUNIT})
execute_process(COMMAND ${CTEST} --test-dir ${TEST_DIR} -L grading-route --output-junit ${JUNIT}
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT EXISTS ${JUNIT})
  message(FATAL_ERROR "ctest wrote no JUnit file (status ${status}):\n${output}")
endif()
file(READ ${JUNIT} junit)
string(REPLACE "," ";" ids "${IDS}")
foreach(id IN LISTS ids)
  if(NOT junit MATCHES "<testcase name=\"grading_route_${id}\"")
    message(FATAL_ERROR "no testcase for ${id} in ${JUNIT}")
  endif()
endforeach()
# The testcase of the stub that does not compile carries the short report.
string(REGEX MATCH "<testcase name=\"grading_route_${BROKEN_ID}\".*</testcase>" broken "${junit}")
string(FIND "${broken}" "</testcase>" end)
string(SUBSTRING "${broken}" 0 ${end} broken)
foreach(expected "FAILED      compile-error" "does not compile" ".stub.log")
  string(FIND "${broken}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the JUnit testcase of ${BROKEN_ID} lacks '${expected}':\n${broken}")
  endif()
endforeach()
string(REGEX MATCH "<testcase name=\"grading_route_${CHEAT_ID}\".*</testcase>" cheat "${junit}")
string(FIND "${cheat}" "a stub cannot use the reference solutions" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the JUnit testcase of ${CHEAT_ID} lacks the refusal:\n${cheat}")
endif()
message(STATUS "JUnit file ${JUNIT}: every puzzle has its testcase, with the reports")
