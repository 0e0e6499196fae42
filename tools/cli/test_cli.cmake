# Runs `mcp-cpp ARGS...` and checks its exit status and output.
#   cmake -DCLI=path -DARGS="a;b" -DEXPECT_CODE=N -DEXPECT_OUTPUT=regex -P test_cli.cmake
execute_process(COMMAND ${CLI} ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL EXPECT_CODE)
  message(FATAL_ERROR "exit status ${code}, expected ${EXPECT_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
