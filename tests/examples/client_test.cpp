// examples/client launching examples/weather over stdio: what it prints is what the server
// answered.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

namespace {

using namespace std::chrono_literals;

std::vector<std::string> lines_of(mcp::test::subprocess& p) {
  std::vector<std::string> out;
  while (auto line = p.read_line(20s)) out.push_back(*line);
  return out;
}

TEST(example_client, launches_the_weather_server_and_calls_its_tool) {
  mcp::test::subprocess p({MCP_EXAMPLE_CLIENT, MCP_EXAMPLE_WEATHER});
  ASSERT_TRUE(p.started());
  const auto lines = lines_of(p);
  EXPECT_EQ(p.wait(10s), 0) << p.drain_stderr();
  ASSERT_EQ(lines.size(), 4U) << p.drain_stderr();
  EXPECT_EQ(lines[0], "server: weather 1.0.0");
  EXPECT_EQ(lines[1], "tool: forecast - Daily forecast for a city");
  EXPECT_EQ(lines[2], "forecast: Oslo: 2");
  EXPECT_TRUE(lines[3].starts_with("tool error: ")) << lines[3];
  EXPECT_NE(lines[3].find("/days: 20 is greater than the maximum 16"), std::string::npos)
      << lines[3];
}

TEST(example_client, says_why_when_the_server_cannot_be_started) {
  mcp::test::subprocess p({MCP_EXAMPLE_CLIENT, "/nonexistent/server"});
  EXPECT_TRUE(lines_of(p).empty());
  EXPECT_EQ(p.wait(10s), 2);
  EXPECT_NE(p.drain_stderr().find("client: "), std::string::npos);
}

}  // namespace
