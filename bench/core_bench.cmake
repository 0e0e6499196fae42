# Benchmarks of the protocol core: the JSON-RPC codec and in-process round trips.
mcp_add_bench(mcp_core_bench core/codec_bench.cpp core/roundtrip_bench.cpp)
target_link_libraries(mcp_core_bench PRIVATE benchmark::benchmark_main)
# Task stores with 100,000 tasks.
mcp_add_bench(mcp_task_store_bench core/task_store_bench.cpp)
target_link_libraries(mcp_task_store_bench PRIVATE benchmark::benchmark_main)
