# Streamable HTTP transport tests (mcp::http): SSE and stream units, server and client
# integration over 127.0.0.1, the demo binary over HTTP, and interop with the TypeScript SDK and
# the MCP Inspector CLI (node; skipped only when node is absent).
mcp_add_test(mcp_http_tests
  http/sse_test.cpp
  http/server_test.cpp
  http/client_test.cpp
  http/client_waits_test.cpp
  http/embedding_test.cpp
  http/hardening_test.cpp
  http/request_reader_test.cpp
  http/stream_test.cpp
  http/session_test.cpp
  http/modern_test.cpp
  http/modern_keepalive_test.cpp
  http/tasks_test.cpp
  http/tls_test.cpp
)
find_package(OpenSSL 3 REQUIRED)
target_link_libraries(mcp_http_tests PRIVATE mcp::http OpenSSL::SSL OpenSSL::Crypto)
target_include_directories(mcp_http_tests PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                  ${CMAKE_CURRENT_SOURCE_DIR}
                                                  ${CMAKE_CURRENT_SOURCE_DIR}/http)

# connect_http (mcp/http_client.hpp): a typed client over a real server on 127.0.0.1.
mcp_add_test(mcp_http_connect_tests http/connect_test.cpp)
target_link_libraries(mcp_http_connect_tests PRIVATE mcp::http)

if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_http_demo_tests http/demo_test.cpp)
  target_link_libraries(mcp_http_demo_tests PRIVATE mcp::http)
  target_include_directories(mcp_http_demo_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(mcp_http_demo_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_http_demo_tests demo_server)

  # Interop: the TypeScript SDK client and the MCP Inspector CLI against the demo over HTTP.
  add_test(NAME mcp_http_interop_ts_sdk
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/interop/run.sh ts-sdk $<TARGET_FILE:demo_server>)
  add_test(NAME mcp_http_interop_inspector
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/interop/run.sh inspector $<TARGET_FILE:demo_server>)
  add_test(NAME mcp_http_interop_ts_sdk_bearer
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/interop/run.sh ts-sdk-bearer $<TARGET_FILE:demo_server>)
  set_tests_properties(mcp_http_interop_ts_sdk mcp_http_interop_inspector
                       mcp_http_interop_ts_sdk_bearer PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS interop)
endif()
