// The redis tests' main: skips (exit 77, which ctest reports as skipped) with the reason when
// redis-server is not installed (except for the URL tests, which need none); listing the tests
// (ctest's discovery) works without it.
#include <gtest/gtest.h>

#include <iostream>

#include "redis/redis_server.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The URL parser's tests need no server: they run anyway.
  const bool needs_server = GTEST_FLAG_GET(filter).rfind("redis_url.", 0) != 0;
  if (!GTEST_FLAG_GET(list_tests) && needs_server && !mcp::test::redis_server::binary()) {
    std::cout << "SKIPPED: redis-server is not installed (Debian package redis-server; or set "
                 "MCP_REDIS_SERVER to the program)\n";
    return 77;
  }
  return RUN_ALL_TESTS();
}
