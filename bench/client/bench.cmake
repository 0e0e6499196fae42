# The client's calls/s (bench/client/compare.sh runs it against the TypeScript SDK client).
add_executable(client_calls ${CMAKE_CURRENT_SOURCE_DIR}/client/client_calls.cpp)
target_link_libraries(client_calls PRIVATE mcp::mcp mcp::http Threads::Threads)
mcp_target_defaults(client_calls)
# The same calls with no client library at all: the floor under any client (compare.sh).
add_executable(bare_calls ${CMAKE_CURRENT_SOURCE_DIR}/client/bare_calls.cpp)
mcp_target_defaults(bare_calls)
# 10,000 concurrent slow calls: a coroutine tool on 2 threads against the blocking form
# (bench/asio/slow_calls.cpp; bench/RESULTS.md has the numbers).
add_executable(slow_calls ${CMAKE_CURRENT_SOURCE_DIR}/asio/slow_calls.cpp)
target_link_libraries(slow_calls PRIVATE mcp::mcp Threads::Threads)
mcp_target_defaults(slow_calls)
