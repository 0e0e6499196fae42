# Runs `mcp-cpp ARGS...` (stdin: /dev/null, never a terminal) and checks its exit status and
# output.
#   cmake -DCLI=path -DARGS="a;b" -DEXPECT_CODE=N -DEXPECT_OUTPUT=regex -P test_cli.cmake
# Optional:
#   -DWORKDIR=dir         run in this directory, emptied first
#   -DJSON_MEMBER="a;0;b" stdout is JSON and its member at this path matches -DJSON_REGEX=regex
#   -DAUDIT_FILE=name     the last line of WORKDIR/name is a JSON audit record (time, server,
#                         tool, arguments, duration_ms) with outcome -DAUDIT_OUTCOME=word
#   -DEXPECT_FILE=name    WORKDIR/name exists afterwards
if(DEFINED WORKDIR)
  file(REMOVE_RECURSE ${WORKDIR})
  file(MAKE_DIRECTORY ${WORKDIR})
  set(_in_dir WORKING_DIRECTORY ${WORKDIR})
endif()
execute_process(COMMAND ${CLI} ${ARGS} ${_in_dir} INPUT_FILE /dev/null
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL EXPECT_CODE)
  message(FATAL_ERROR "exit status ${code}, expected ${EXPECT_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED JSON_MEMBER)
  string(JSON got ERROR_VARIABLE json_error GET "${out}" ${JSON_MEMBER})
  if(json_error OR NOT got MATCHES "${JSON_REGEX}")
    message(FATAL_ERROR "stdout member ${JSON_MEMBER} is '${got}' (${json_error}), expected '${JSON_REGEX}'\nstdout:\n${out}")
  endif()
endif()
if(DEFINED AUDIT_FILE)
  file(STRINGS ${WORKDIR}/${AUDIT_FILE} lines)
  list(GET lines -1 last)
  foreach(member time server tool arguments duration_ms)
    string(JSON ignored ERROR_VARIABLE json_error GET "${last}" ${member})
    if(json_error)
      message(FATAL_ERROR "audit line without ${member} (${json_error}): ${last}")
    endif()
  endforeach()
  string(JSON outcome ERROR_VARIABLE json_error GET "${last}" outcome)
  if(NOT outcome STREQUAL AUDIT_OUTCOME)
    message(FATAL_ERROR "audit outcome '${outcome}', expected '${AUDIT_OUTCOME}': ${last}")
  endif()
endif()
if(DEFINED EXPECT_FILE AND NOT EXISTS ${WORKDIR}/${EXPECT_FILE})
  message(FATAL_ERROR "${EXPECT_FILE} was not written\nstdout:\n${out}")
endif()
