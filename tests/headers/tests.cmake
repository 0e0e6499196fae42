# Every public header compiles on its own (it includes what it uses), with the project's full
# warning set: one generated translation unit per header, built as part of the test build.
set(MCP_PUBLIC_HEADERS
  asio.hpp
  audit.hpp
  beast.hpp
  auth.hpp
  checked_json.hpp
  client.hpp
  client_cache.hpp
  client_types.hpp
  content.hpp
  context.hpp
  error.hpp
  executor.hpp
  http_client.hpp
  http_endpoint.hpp
  http_server.hpp
  json.hpp
  json_schema.hpp
  jsonrpc.hpp
  oauth.hpp
  observe.hpp
  observe/conventions.hpp
  observe/metrics.hpp
  observe/metrics_server.hpp
  observe/otlp.hpp
  observe/tracing.hpp
  pipeline.hpp
  policy.hpp
  prompt.hpp
  protocol.hpp
  redis.hpp
  reflect.hpp
  resource.hpp
  server.hpp
  redis_task_queue.hpp
  task_queue.hpp
  shared_state.hpp
  task_store.hpp
  tool.hpp
  transport.hpp
  transport/memory.hpp
  transport/process.hpp
  transport/stdio.hpp
  typed_tool.hpp
  uri_template.hpp
  version.hpp
)
# A header added to include/mcp/ without being listed here fails the configure step.
file(GLOB _mcp_found RELATIVE ${PROJECT_SOURCE_DIR}/include/mcp
     ${PROJECT_SOURCE_DIR}/include/mcp/*.hpp ${PROJECT_SOURCE_DIR}/include/mcp/transport/*.hpp
     ${PROJECT_SOURCE_DIR}/include/mcp/observe/*.hpp)
foreach(_h IN LISTS _mcp_found)
  if(NOT _h IN_LIST MCP_PUBLIC_HEADERS)
    message(FATAL_ERROR "include/mcp/${_h} is not listed in tests/headers/tests.cmake")
  endif()
endforeach()
set(_mcp_header_tus "")
foreach(_h IN LISTS MCP_PUBLIC_HEADERS)
  string(MAKE_C_IDENTIFIER "${_h}" _id)
  set(_tu ${CMAKE_CURRENT_BINARY_DIR}/headers/${_id}.cpp)
  file(CONFIGURE OUTPUT ${_tu} CONTENT "#include <mcp/${_h}>  // must compile on its own\n")
  list(APPEND _mcp_header_tus ${_tu})
endforeach()
add_library(mcp_header_tests OBJECT ${_mcp_header_tus})
target_link_libraries(mcp_header_tests PRIVATE mcp::mcp)
mcp_target_defaults(mcp_header_tests)
