# Benchmarks of the protocol core: the JSON-RPC codec and in-process round trips.
mcp_add_bench(mcp_core_bench core/codec_bench.cpp core/roundtrip_bench.cpp)
target_link_libraries(mcp_core_bench PRIVATE benchmark::benchmark_main)
