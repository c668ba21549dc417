# cmake -DCMD=<;-list> -DEXPECT_RC=<n> [-DEXPECT_OUT=<regex>] -P expect_run.cmake
# Runs CMD; fails unless it exits with EXPECT_RC and (if given) its stdout+stderr
# matches EXPECT_OUT. Used for the uattn-explain error-path tests.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
endif()
if(DEFINED EXPECT_OUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUT}'")
endif()
