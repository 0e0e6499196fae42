# The official MCP conformance suite (shared/conformance, beside the source tree) against
# examples/everything_server over Streamable HTTP, and the TypeScript SDK client driving the same
# server over stdio and HTTP. Label `conformance`; they need network access the first time (npm).
if(MCP_BUILD_EXAMPLES)
  set(MCP_CONFORMANCE_SUITE ${PROJECT_SOURCE_DIR}/../shared/conformance/run-server-suite.sh)
  add_test(NAME mcp_conformance_server_0_1_16
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh ${MCP_CONFORMANCE_SUITE}
            $<TARGET_FILE:everything_server> ${CMAKE_CURRENT_BINARY_DIR}/conformance-0.1.16 stable)
  add_test(NAME mcp_conformance_server_0_2_0_alpha
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh ${MCP_CONFORMANCE_SUITE}
            $<TARGET_FILE:everything_server> ${CMAKE_CURRENT_BINARY_DIR}/conformance-alpha alpha)
  set_tests_properties(mcp_conformance_server_0_1_16 mcp_conformance_server_0_2_0_alpha
    PROPERTIES TIMEOUT 1200 LABELS conformance)

  add_test(NAME mcp_conformance_ts_sdk_interop
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/ts_sdk_interop.sh
            $<TARGET_FILE:everything_server>)
  set_tests_properties(mcp_conformance_ts_sdk_interop PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "conformance;interop")
endif()
