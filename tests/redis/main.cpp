// The redis tests' main: skips (exit 77, which ctest reports as skipped) with the reason when
// redis-server is not installed; listing the tests (ctest's discovery) works without it.
#include <gtest/gtest.h>

#include <iostream>

#include "redis/redis_server.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!GTEST_FLAG_GET(list_tests) && !mcp::test::redis_server::binary()) {
    std::cout << "SKIPPED: redis-server is not installed (Debian package redis-server)\n";
    return 77;
  }
  return RUN_ALL_TESTS();
}
