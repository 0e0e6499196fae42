# Task stores against Redis: the create -> update -> get round trip on the memory, SQLite and Redis
# stores in one run, and the latency of one Redis round trip from the pool (p50/p99 counters).
# Starts its own redis-server (Debian's) on 127.0.0.1; built when hiredis is found.
if(MCP_HAVE_REDIS)
  mcp_add_bench(mcp_redis_bench redis/redis_bench.cpp)
  target_link_libraries(mcp_redis_bench PRIVATE mcp::redis mcp::sqlite benchmark::benchmark_main)
  target_include_directories(mcp_redis_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests)
endif()
