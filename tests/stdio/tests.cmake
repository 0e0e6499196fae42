# serve_stdio at the wire: a real subprocess (tests/stdio/eof_server.cpp) fed requests on a pipe
# whose writing end is closed at once.
add_executable(mcp_stdio_eof_server stdio/eof_server.cpp)
target_link_libraries(mcp_stdio_eof_server PRIVATE mcp::mcp)
mcp_target_defaults(mcp_stdio_eof_server)
mcp_add_test(mcp_stdio_eof_tests stdio/stdio_eof_test.cpp)
target_include_directories(mcp_stdio_eof_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(mcp_stdio_eof_tests PRIVATE
  MCP_STDIO_EOF_SERVER="$<TARGET_FILE:mcp_stdio_eof_server>")
add_dependencies(mcp_stdio_eof_tests mcp_stdio_eof_server)
