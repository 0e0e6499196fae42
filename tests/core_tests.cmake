# Tests of the core library: unit tests mirror include/mcp/, wire tests drive sessions.
mcp_add_test(mcp_core_tests
  unit/content_test.cpp
  unit/jsonrpc_test.cpp
  unit/server_test.cpp
  unit/pipeline_test.cpp
  unit/typed_tool_test.cpp
  unit/client_test.cpp
)
target_include_directories(mcp_core_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
