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

# mcp/client.hpp in the 2026-07-28 era: the retry after -32020, subscriptions/listen.
if(MCP_BUILD_EXAMPLES)
  mcp_add_test(mcp_client_tests client/client_test.cpp)
  target_link_libraries(mcp_client_tests PRIVATE mcp::http)
  target_include_directories(mcp_client_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(mcp_client_tests PRIVATE MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_client_tests demo_server)
endif()
