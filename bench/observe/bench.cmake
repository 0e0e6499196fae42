# The cost of observation per operation (mcp::observe), against an in-process round trip.
mcp_add_bench(mcp_observe_bench ${CMAKE_CURRENT_SOURCE_DIR}/observe/observe_bench.cpp)
target_link_libraries(mcp_observe_bench PRIVATE mcp::observe benchmark::benchmark_main)
