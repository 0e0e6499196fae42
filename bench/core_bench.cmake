# Benchmarks of the protocol core: the JSON-RPC codec and in-process round trips.
mcp_add_bench(mcp_core_bench core/codec_bench.cpp core/roundtrip_bench.cpp)
target_link_libraries(mcp_core_bench PRIVATE benchmark::benchmark_main)
# Task stores with 100,000 tasks, and the task round trip by 1 and 32 callers (it asks the SQLite
# store for its counts: src/detail/sqlite_store_counts.hpp).
mcp_add_bench(mcp_task_store_bench core/task_store_bench.cpp)
target_link_libraries(mcp_task_store_bench PRIVATE mcp::sqlite benchmark::benchmark_main)
target_include_directories(mcp_task_store_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
# One 2026-07-28 input round's state: sealed, then opened as its retry (src/detail/round_state.hpp).
mcp_add_bench(mcp_round_state_bench core/round_state_bench.cpp)
target_link_libraries(mcp_round_state_bench PRIVATE benchmark::benchmark_main)
target_include_directories(mcp_round_state_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
