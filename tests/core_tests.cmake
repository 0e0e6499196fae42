# Tests of the core library: unit tests mirror include/mcp/, wire tests drive sessions.
mcp_add_test(mcp_core_tests
  unit/error_test.cpp
  unit/executor_test.cpp
  unit/asio_test.cpp
  unit/context_test.cpp
  unit/json_test.cpp
  unit/content_test.cpp
  unit/jsonrpc_test.cpp
  unit/server_test.cpp
  unit/server_flow_test.cpp
  unit/pipeline_test.cpp
  unit/pipeline_concurrency_test.cpp
  unit/policy_test.cpp
  unit/round_state_test.cpp
  unit/audit_test.cpp
  unit/typed_tool_test.cpp
  unit/typed_tool_seed_test.cpp
  unit/tool_test.cpp
  unit/checked_json_test.cpp
  unit/client_test.cpp
  unit/client_hooks_test.cpp
  unit/client_features_test.cpp
  unit/client_typed_test.cpp
  unit/client_tasks_test.cpp
  unit/tasks_test.cpp
  unit/timer_test.cpp
  unit/transport_test.cpp
  unit/uri_template_test.cpp
  unit/resource_test.cpp
  unit/task_store_test.cpp
  unit/task_store_sqlite_test.cpp
  unit/task_store_sqlite_wal_test.cpp
  unit/version_test.cpp
)

set_source_files_properties(unit/version_test.cpp PROPERTIES
  COMPILE_DEFINITIONS MCP_PROJECT_VERSION="${PROJECT_VERSION}")
target_include_directories(mcp_core_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                  ${PROJECT_SOURCE_DIR}/src)
# The task store tests make a foreign SQLite database by hand, and kill a process writing into
# a store (mcp_task_store_writer) to see that what it acknowledged is there.
target_link_libraries(mcp_core_tests PRIVATE mcp::sqlite SQLite::SQLite3)
add_executable(mcp_task_store_writer unit/task_store_writer.cpp)
target_link_libraries(mcp_task_store_writer PRIVATE mcp::sqlite)
mcp_target_defaults(mcp_task_store_writer)
set_source_files_properties(unit/task_store_sqlite_test.cpp PROPERTIES
  COMPILE_DEFINITIONS MCP_TASK_STORE_WRITER="$<TARGET_FILE:mcp_task_store_writer>")
add_dependencies(mcp_core_tests mcp_task_store_writer)

# The typed client (mcp/client_types.hpp): a target of its own, so that it builds and runs
# without the whole core suite.
mcp_add_test(mcp_client_types_tests unit/client_types_test.cpp)

# Golden transcripts and the bad-input catalogue against the demo server over stdio.
mcp_add_test(mcp_stdio_tests
  integration/stdio_transcript_test.cpp
  integration/stdio_demo_test.cpp
  integration/stdio_hostile_test.cpp
  integration/stdio_tasks_test.cpp
  unit/transport_process_test.cpp  # launches demo_server too
)
target_include_directories(mcp_stdio_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                   ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(mcp_stdio_tests PRIVATE MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>"
                           MCP_EVERYTHING_SERVER="$<TARGET_FILE:everything_server>")
add_dependencies(mcp_stdio_tests demo_server everything_server)

# Interop: the MCP Inspector CLI against the demo server over stdio (node; 77 = skipped).
add_test(NAME mcp_stdio_interop_inspector
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/inspector_stdio.sh $<TARGET_FILE:demo_server>)
set_tests_properties(mcp_stdio_interop_inspector PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
                                                            LABELS interop)
