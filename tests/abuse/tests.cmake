# The abuse suite: the demo server attacked over sockets and pipes, class by class
# (docs/testing.md, "Abuse at the socket"). About a minute; label `abuse`, left out of the
# sanitizer run, whose allocators make the RSS baseline meaningless.
add_executable(mcp_abuse_tests abuse/abuse_test.cpp)
target_link_libraries(mcp_abuse_tests PRIVATE mcp::mcp GTest::gtest GTest::gtest_main)
mcp_target_defaults(mcp_abuse_tests)
target_include_directories(mcp_abuse_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(mcp_abuse_tests PRIVATE MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
add_dependencies(mcp_abuse_tests demo_server)
gtest_discover_tests(mcp_abuse_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 LABELS abuse
                     RUN_SERIAL TRUE)
