// Hostile input over stdio against the everything server as a subprocess: inputs that once took
// a session or the process down, each followed by a check that the server still serves.
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "detail/utf8.hpp"
#include "support/subprocess.hpp"

namespace {

constexpr const char* init =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

struct everything : ::testing::Test {
  mcp::test::subprocess server{{MCP_EVERYTHING_SERVER}};
  void SetUp() override {
    ASSERT_TRUE(server.started());
    ASSERT_TRUE(server.write_line(init));
    ASSERT_EQ(read().at("id"), 0);
    ASSERT_TRUE(server.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  }
  /// The next line on stdout, which must be valid UTF-8 and valid JSON.
  mcp::json::value read() {
    auto line = server.read_line();
    if (!line) return nullptr;
    EXPECT_TRUE(mcp::detail::valid_utf8(*line)) << *line;
    auto v = mcp::parse_json(*line);
    EXPECT_TRUE(v) << *line;
    return v ? *v : mcp::json::value(nullptr);
  }
  void expect_still_serving(int id) {
    ASSERT_TRUE(server.write_line(
        R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
        R"(,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}})"));
    auto r = read();
    ASSERT_TRUE(r.is_object());
    EXPECT_EQ(r.at("id"), id);
    EXPECT_TRUE(r.as_object().contains("result")) << mcp::json::serialize(r);
  }
};

TEST_F(everything, a_uri_decoding_to_invalid_utf8_gets_32602_and_the_session_lives) {
  for (const char* uri : {"test://template/a%95b/data", "test://template/%FF%FE/data",
                          "test://template/%C0%AF/data", "test://template/%ED%A0%80/data"}) {
    ASSERT_TRUE(
        server.write_line(R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":")" +
                          std::string(uri) + R"("}})"));
    auto r = read();
    ASSERT_TRUE(r.is_object()) << uri;
    EXPECT_EQ(r.at("error").at("code"), -32602) << mcp::json::serialize(r);
  }
  expect_still_serving(2);
  // A valid percent-encoded id is read as before.
  ASSERT_TRUE(server.write_line(
      R"({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://template/%C3%A9/data"}})"));
  auto ok = read();
  EXPECT_TRUE(ok.as_object().contains("result")) << mcp::json::serialize(ok);
}

TEST_F(everything, lone_surrogate_escapes_never_come_back_as_invalid_utf8) {
  for (const std::string line :
       {R"({"jsonrpc":"2.0","id":4,"method":"tools/\udc80"})",
        R"({"jsonrpc":"2.0","id":"\ud800x","method":"nope"})",
        R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"\udfff"}})",
        R"({"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"\ud800"}})",
        R"({"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"\ud800"}})"}) {
    ASSERT_TRUE(server.write_line(line));
    auto r = read();  // checks UTF-8 and JSON
    EXPECT_TRUE(r.is_object()) << line;
  }
  expect_still_serving(8);
}

}  // namespace
