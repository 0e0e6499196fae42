# mcp-cpp: the command-line tool (tools/cli). Subcommands live in their own files.
find_package(CLI11 CONFIG REQUIRED)
add_executable(mcp-cpp cli/main.cpp cli/schema_command.cpp cli/tools_command.cpp cli/connect.cpp
                       cli/args.cpp cli/render.cpp)
target_link_libraries(mcp-cpp PRIVATE mcp::mcp mcp::http CLI11::CLI11)
mcp_target_defaults(mcp-cpp)

if(MCP_BUILD_TESTS)
  set(_cli_data ${CMAKE_CURRENT_SOURCE_DIR}/cli/testdata)
  function(mcp_cli_test name code regex)
    add_test(NAME cli_${name}
             COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:mcp-cpp> "-DARGS=${ARGN}"
                     -DEXPECT_CODE=${code} "-DEXPECT_OUTPUT=${regex}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.cmake)
  endfunction()
  mcp_cli_test(schema_validate_valid 0 "valid.json: valid"
               schema validate ${_cli_data}/schema.json ${_cli_data}/valid.json)
  mcp_cli_test(schema_validate_invalid 1
               "invalid.json: invalid\n  /days: 17 is greater than the maximum 16  \\[schema /properties/days/maximum\\]"
               schema validate ${_cli_data}/schema.json ${_cli_data}/invalid.json)
  mcp_cli_test(schema_validate_mixed 1 "valid.json: valid.*invalid.json: invalid"
               schema validate ${_cli_data}/schema.json ${_cli_data}/valid.json
               ${_cli_data}/invalid.json)
  mcp_cli_test(schema_validate_bad_schema 2 "invalid schema at /type"
               schema validate ${_cli_data}/bad-schema.json ${_cli_data}/valid.json)
  mcp_cli_test(schema_validate_usage 2 "INSTANCE_FILE"
               schema validate ${_cli_data}/schema.json)
endif()
