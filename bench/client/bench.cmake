# The client's calls/s (bench/client/compare.sh runs it against the TypeScript SDK client).
add_executable(client_calls ${CMAKE_CURRENT_SOURCE_DIR}/client/client_calls.cpp)
target_link_libraries(client_calls PRIVATE mcp::mcp mcp::http Threads::Threads)
mcp_target_defaults(client_calls)
