# mcp::observe: the seam's trace context and fan-out, the conventions, metrics and their
# Prometheus text (golden), spans, the OTLP/JSON encodings and the /metrics endpoint (label
# `observe`); then two tests against real programs: Debian's Prometheus scraping our endpoint,
# and our OTLP exporter posting to a local receiver that decodes with the opentelemetry-proto
# definitions (node). Each reports SKIPPED (77) only when its program is missing.
find_package(OpenSSL 3 REQUIRED)
add_executable(mcp_observe_tests
  observe/observe_test.cpp
  observe/conventions_test.cpp
  observe/engine_test.cpp
  observe/engine_series_test.cpp
  observe/engine_roots_test.cpp
  observe/engine_close_test.cpp
  observe/engine_answer_test.cpp
  observe/engine_modern_test.cpp
  observe/engine_set_roots_test.cpp
  observe/metrics_test.cpp
  observe/metrics_server_test.cpp
  observe/otlp_test.cpp
  observe/tracing_test.cpp
)
target_link_libraries(mcp_observe_tests PRIVATE mcp::observe mcp::http GTest::gtest GTest::gtest_main)
target_include_directories(mcp_observe_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                     ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(mcp_observe_tests PRIVATE MCP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
mcp_target_defaults(mcp_observe_tests)
gtest_discover_tests(mcp_observe_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 LABELS observe)

foreach(name prometheus_scrape otlp_exporter)
  add_executable(mcp_observe_${name}_test observe/${name}_test.cpp)
  if(name STREQUAL "otlp_exporter")
    target_sources(mcp_observe_${name}_test PRIVATE observe/otlp_connection_test.cpp
                                                     observe/otlp_ids_test.cpp
                                                     observe/otlp_queue_test.cpp)
  endif()
  target_link_libraries(mcp_observe_${name}_test PRIVATE mcp::observe mcp::http GTest::gtest)
  target_include_directories(mcp_observe_${name}_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                              ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(mcp_observe_${name}_test PRIVATE
    MCP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  mcp_target_defaults(mcp_observe_${name}_test)
  add_test(NAME mcp_observe_${name} COMMAND mcp_observe_${name}_test)
  set_tests_properties(mcp_observe_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                                                      LABELS observe)
endforeach()

# The demo's --metrics endpoint after a known mix of calls over Streamable HTTP (curl), checked
# by promtool and scraped by Debian's Prometheus.
add_test(NAME mcp_observe_demo_metrics
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/observe/demo_metrics.sh $<TARGET_FILE:demo_server>)
set_tests_properties(mcp_observe_demo_metrics PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS observe)

# Trace context end to end with the TypeScript SDK and OpenTelemetry's JS tracer, both ways:
# their client span is our server span's parent; our client span is what their handler reads.
add_test(NAME mcp_observe_trace_e2e
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/observe/trace-e2e/run.sh
                 $<TARGET_FILE:demo_server> $<TARGET_FILE:mcp-cpp>)
set_tests_properties(mcp_observe_trace_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                                                      LABELS "observe;interop")
