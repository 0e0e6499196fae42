# Redis tests (mcp::redis; built when hiredis is found): the client, the task store (the store
# contract of tests/unit plus what only Redis does), the event store and failures (Redis killed,
# paused, a wrong password). Each test starts a real redis-server (Debian's) on 127.0.0.1 and an
# ephemeral port, and is reported skipped (exit 77) with the reason when redis-server is missing.
if(MCP_HAVE_REDIS)
  add_executable(mcp_redis_tests
    redis/main.cpp
    redis/redis_client_test.cpp
    redis/redis_task_store_test.cpp
    redis/redis_event_store_test.cpp
    redis/redis_failure_test.cpp
    redis/redis_shared_state_test.cpp
    redis/shared_changes_test.cpp
    redis/redis_task_queue_worker_test.cpp
  )
  target_link_libraries(mcp_redis_tests PRIVATE mcp::redis GTest::gtest GTest::gmock)
  target_include_directories(mcp_redis_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                     ${PROJECT_SOURCE_DIR}/src)
  mcp_target_defaults(mcp_redis_tests)
  gtest_discover_tests(mcp_redis_tests DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS redis)
  # The cross-process task queue at the wire: demo_server processes over stdio on one Redis.
  if(MCP_BUILD_EXAMPLES)
    add_executable(mcp_redis_queue_tests redis/main.cpp redis/redis_task_queue_test.cpp)
    target_link_libraries(mcp_redis_queue_tests PRIVATE mcp::redis GTest::gtest)
    target_include_directories(mcp_redis_queue_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_compile_definitions(mcp_redis_queue_tests PRIVATE
      MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
    add_dependencies(mcp_redis_queue_tests demo_server)
    mcp_target_defaults(mcp_redis_queue_tests)
    gtest_discover_tests(mcp_redis_queue_tests DISCOVERY_TIMEOUT 60
      PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "redis;cluster" RUN_SERIAL TRUE)
  endif()
endif()

# The cluster test: a real redis-server, demo_server processes sharing it (--redis) and a
# round-robin HAProxy, on 127.0.0.1; skipped (exit 77) when redis-server or haproxy is missing.
if(MCP_HAVE_REDIS AND MCP_BUILD_EXAMPLES)
  add_executable(mcp_cluster_tests redis/cluster_test.cpp redis/cluster_relay_test.cpp
    redis/cluster_task_test.cpp redis/cluster_push_test.cpp
    redis/cluster_load_test.cpp)
  target_link_libraries(mcp_cluster_tests PRIVATE mcp::http mcp::redis GTest::gtest)
  target_include_directories(mcp_cluster_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                       ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(mcp_cluster_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_cluster_tests demo_server)
  mcp_target_defaults(mcp_cluster_tests)
  # Serial: the load tests (a flood of slow calls, kill -9 under load) measure response times.
  gtest_discover_tests(mcp_cluster_tests DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "redis;cluster" RUN_SERIAL TRUE)
endif()
