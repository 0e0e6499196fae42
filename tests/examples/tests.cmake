# The examples (examples/<name>/main.cpp) at the wire: each runs as a subprocess over stdio, or
# listens on an ephemeral port of 127.0.0.1, and is spoken to as a host would.
set(_mcp_examples weather typed_tool resources_prompts long_task http_auth client asio_app
                  sqlite_readonly)
mcp_add_test(mcp_examples_tests
  examples/stdio_examples_test.cpp
  examples/long_task_test.cpp
  examples/http_auth_test.cpp
  examples/client_test.cpp
  examples/asio_app_test.cpp
  examples/sqlite_readonly_test.cpp
)
# The HTTP examples are spoken to with tests/http's raw client, which reads SSE with src/http's
# parser. The SQLite example's test makes its database with SQLite itself.
target_link_libraries(mcp_examples_tests PRIVATE mcp::http SQLite::SQLite3)
target_include_directories(mcp_examples_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                      ${PROJECT_SOURCE_DIR}/src)
foreach(_example IN LISTS _mcp_examples)
  string(TOUPPER ${_example} _upper)
  target_compile_definitions(mcp_examples_tests PRIVATE
    MCP_EXAMPLE_${_upper}="$<TARGET_FILE:example_${_example}>")
  add_dependencies(mcp_examples_tests example_${_example})
endforeach()
