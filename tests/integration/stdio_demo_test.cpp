// The demo server as a subprocess over stdio: inputs too large or too deep for a transcript
// file, and a client that goes away in the middle of a call.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include "support/subprocess.hpp"

namespace {

using namespace std::chrono_literals;

constexpr const char* init =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

mcp::json::value read_json(mcp::test::subprocess& p) {
  auto line = p.read_line();
  if (!line) return nullptr;
  auto v = mcp::parse_json(*line);
  return v ? *v : mcp::json::value(mcp::json::string("<non-JSON on stdout: " + *line + ">"));
}

void expect_still_serving(mcp::test::subprocess& p, int id) {
  ASSERT_TRUE(
      p.write_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})"));
  auto r = read_json(p);
  EXPECT_EQ(r,
            (mcp::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", mcp::json::object{}}}));
}

struct demo : ::testing::Test {
  mcp::test::subprocess server{{MCP_DEMO_SERVER}};
  void SetUp() override {
    ASSERT_TRUE(server.started());
    ASSERT_TRUE(server.write_line(init));
    ASSERT_EQ(read_json(server).at("id"), 0);
    ASSERT_TRUE(server.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  }
};

TEST_F(demo, oversized_line_is_refused_and_the_server_keeps_serving) {
  std::string huge =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":")";
  huge += std::string(std::size_t{5} << 20U, 'x');
  huge += R"("}}})";
  ASSERT_TRUE(server.write_line(huge));
  auto r = read_json(server);
  EXPECT_EQ(r.at("error").at("code"), -32600);
  EXPECT_FALSE(r.as_object().contains("id"));
  EXPECT_NE(std::string(r.at("error").at("message").as_string()).find("exceeds the limit"),
            std::string::npos);
  expect_still_serving(server, 2);
}

TEST_F(demo, deep_nesting_is_refused) {
  std::string deep =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":)";
  deep += std::string(10000, '[') + std::string(10000, ']') + "}}}";
  ASSERT_TRUE(server.write_line(deep));
  auto r = read_json(server);
  EXPECT_EQ(r.at("error").at("code"), -32600);
  expect_still_serving(server, 2);
}

TEST_F(demo, invalid_utf8_is_a_parse_error) {
  ASSERT_TRUE(server.write_line(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
      "\"arguments\":{\"text\":\"\xc3\x28\"}}}"));
  auto r = read_json(server);
  EXPECT_EQ(r.at("error").at("code"), -32700);
  expect_still_serving(server, 2);
}

TEST_F(demo, many_pipelined_calls_all_get_answers) {
  for (int i = 1; i <= 500; ++i) {
    ASSERT_TRUE(server.write_line(
        R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
        R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m)" +
        std::to_string(i) + R"("}}})"));
  }
  std::vector<bool> seen(501, false);
  for (int i = 1; i <= 500; ++i) {
    auto r = read_json(server);
    const auto id = r.at("id").as_int64();
    ASSERT_GE(id, 1);
    ASSERT_LE(id, 500);
    EXPECT_FALSE(seen[static_cast<std::size_t>(id)]);
    seen[static_cast<std::size_t>(id)] = true;
    EXPECT_EQ(r.at("result").at("content").at(0).at("text").as_string(), "m" + std::to_string(id));
  }
}

TEST_F(demo, client_exit_mid_call_ends_the_server_cleanly_after_the_drain_timeout) {
  // The call (10 s) outlasts the drain timeout (the default, 1 s): it is waited for that long,
  // then cancelled and named on stderr, and the server exits (within the 2 s a launcher such as
  // mcp::process gives it before SIGTERM).
  ASSERT_TRUE(server.write_line(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_count","arguments":{"steps":100,"step_ms":100}}})"));
  std::this_thread::sleep_for(150ms);
  server.close_stdin();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.wait(10s), 0);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 950ms) << "the running call was not waited for";
  // Not cancelled, the call would run its 10 s: the bound leaves room for a slow exit.
  EXPECT_LT(took, 5s) << "the running call was not cancelled after the drain timeout";
  EXPECT_NE(server.drain_stderr().find("1 request(s) still running after 1000 ms cancelled "
                                       "unanswered, ids: 1"),
            std::string::npos);
}

TEST_F(demo, cancel_of_a_running_call_sends_no_response) {
  ASSERT_TRUE(server.write_line(
      R"({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow_count","arguments":{"steps":50,"step_ms":20}}})"));
  std::this_thread::sleep_for(60ms);
  ASSERT_TRUE(server.write_line(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}})"));
  expect_still_serving(server, 2);
  EXPECT_FALSE(server.read_line(400ms)) << "no response may follow a cancellation";
}

}  // namespace
