# JSON Schema validator: unit tests and the official test suite runner.
mcp_add_test(mcp_json_schema_tests
  json_schema/validator_test.cpp
  json_schema/regex_test.cpp
)
target_include_directories(mcp_json_schema_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)

add_executable(json_schema_suite json_schema/suite_runner.cpp)
target_link_libraries(json_schema_suite PRIVATE mcp::mcp)
mcp_target_defaults(json_schema_suite)

# The suite checkout: $MCP_JSON_SCHEMA_SUITE when set at test time, else this directory beside the
# source tree. With neither the tests are reported skipped (exit 77) and say why.
set(MCP_JSON_SCHEMA_SUITE "${PROJECT_SOURCE_DIR}/../shared/json-schema-test-suite")
foreach(dialect draft2020-12 draft7)
  # Required tests: the ctest test fails when any of them fails.
  add_test(NAME json_schema_suite_${dialect}
           COMMAND json_schema_suite "${MCP_JSON_SCHEMA_SUITE}" ${dialect} required)
  # Optional tests: run and reported (see json_schema/optional_failures.md), never failing.
  add_test(NAME json_schema_suite_${dialect}_optional
           COMMAND json_schema_suite "${MCP_JSON_SCHEMA_SUITE}" ${dialect} optional)
  set_tests_properties(json_schema_suite_${dialect} json_schema_suite_${dialect}_optional
                       PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
