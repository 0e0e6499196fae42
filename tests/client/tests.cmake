# The client (mcp/client.hpp) in both protocol eras, at the wire: negotiation in each mode
# against our own server over stdio (the demo binary) and HTTP (127.0.0.1), the fallback against
# the TypeScript SDK 1.x reference server (skipped only without node and ../shared/bench),
# 2026-07-28 headers and input rounds.
if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_client_negotiation_tests client/negotiation_test.cpp)
  target_link_libraries(mcp_client_negotiation_tests PRIVATE mcp::http)
  target_include_directories(mcp_client_negotiation_tests PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                                   ${CMAKE_CURRENT_SOURCE_DIR}/http)
  target_compile_definitions(mcp_client_negotiation_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_client_negotiation_tests demo_server)
endif()

# mcp/client_cache.hpp: the negotiation verdict per server command and endpoint, probed again
# when wrong; cached results (ttlMs, cacheScope) against our server over HTTP and a scripted peer.
if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_client_cache_tests client/client_cache_test.cpp)
  target_link_libraries(mcp_client_cache_tests PRIVATE mcp::http)
  target_include_directories(mcp_client_cache_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(mcp_client_cache_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_client_cache_tests demo_server)
endif()

# mcp/client.hpp in the 2026-07-28 era: the retry after -32020, subscriptions/listen (against our
# server, and a raw one on 127.0.0.1 for what reaches the wire: the pause before a listen is sent
# again, a wait_task's listen closed when the wait ends).
if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_client_tests client/client_test.cpp client/client_listen_test.cpp)
  target_link_libraries(mcp_client_tests PRIVATE mcp::http)
  target_include_directories(mcp_client_tests PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                      ${CMAKE_CURRENT_SOURCE_DIR}/http)
  target_compile_definitions(mcp_client_tests PRIVATE MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_client_tests demo_server)
endif()

# mcp/client.hpp, tasks in both eras (the 2026-07-28 tasks extension, 2025-11-25 tasks) against
# our server over HTTP on 127.0.0.1 and the demo over stdio.
if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_client_tasks_tests client/client_tasks_modern_test.cpp)
  target_link_libraries(mcp_client_tasks_tests PRIVATE mcp::http)
  target_include_directories(mcp_client_tasks_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(mcp_client_tasks_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_client_tasks_tests demo_server)
endif()

# The client against the TypeScript SDK 2.4.0 server (conformance/ts_sdk2_server.mjs: 2026-07-28
# only, both eras, 2025-11-25 only; stdio and HTTP; through both `mcp-cpp bridge` directions). One ctest run through
# conformance/ts_sdk2.sh, which installs the pinned SDK (npm, network the first time) and names the
# server script in MCP_TS2_SCRIPT.
if(MCP_BUILD_EXAMPLES)
  add_executable(mcp_client_ts_sdk2_tests client/ts_sdk2_server_test.cpp)
  target_link_libraries(mcp_client_ts_sdk2_tests PRIVATE mcp::mcp mcp::http GTest::gtest
                                                         GTest::gtest_main)
  mcp_target_defaults(mcp_client_ts_sdk2_tests)
  target_compile_definitions(mcp_client_ts_sdk2_tests PRIVATE
    MCP_SOURCE_DIR="${PROJECT_SOURCE_DIR}" MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>"
    MCP_CLI="$<TARGET_FILE:mcp-cpp>")
  add_dependencies(mcp_client_ts_sdk2_tests mcp-cpp)
  add_test(NAME mcp_conformance_ts_sdk2_server
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/ts_sdk2.sh ts_sdk2_server.mjs
            $<TARGET_FILE:mcp_client_ts_sdk2_tests>)
  set_tests_properties(mcp_conformance_ts_sdk2_server PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "conformance;interop")
endif()
