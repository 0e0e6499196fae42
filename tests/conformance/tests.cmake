# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# conformance/pins/) against examples/everything_server over Streamable HTTP, and the TypeScript
# SDK client driving the same server over stdio and HTTP. Label `conformance`; they need network
# access the first time (npm).
if(MCP_BUILD_EXAMPLES)
  set(MCP_CONFORMANCE_RUN ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh server
      --server $<TARGET_FILE:everything_server>)
  # 0.1.16: the 30 scenarios of its active suite, then two pending ones by name.
  add_test(NAME mcp_conformance_server_0_1_16
    COMMAND ${MCP_CONFORMANCE_RUN} --version 0.1.16 --suite active
            --scenario json-schema-2020-12 --scenario server-sse-polling --expect 32
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-0.1.16)
  # 0.2.0-alpha.12: the 31 scenarios of its active suite.
  add_test(NAME mcp_conformance_server_0_2_0_alpha
    COMMAND ${MCP_CONFORMANCE_RUN} --version 0.2.0-alpha.12 --suite active --expect 31
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-alpha)
  set_tests_properties(mcp_conformance_server_0_1_16 mcp_conformance_server_0_2_0_alpha
    PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS conformance)

  add_test(NAME mcp_conformance_ts_sdk_interop
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/ts_sdk_interop.sh
            $<TARGET_FILE:everything_server>)
  set_tests_properties(mcp_conformance_ts_sdk_interop PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "conformance;interop")
endif()
