// Hostile input at the HTTP server's socket: the reproductions of the crash and invalid-JSON
// classes, each followed by a check that the server still serves; and the keep-alive timing
// that the server and our client agree on.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <thread>

#include "detail/utf8.hpp"
#include "http_test_util.hpp"

namespace mcp_test {
namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = mcp::detail::decode_utf8(s, i).length;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

class HttpHardening : public http_fixture {
 protected:
  /// A fresh client initializes and gets its echo back verbatim.
  void expect_serving() {
    const auto sid = open_session(port_);
    ASSERT_FALSE(sid.empty());
    auto r = request(port_, "POST", call_body("9", "echo", R"({"text":"still here"})"),
                     post_headers(sid));
    EXPECT_EQ(r.status, 200U);
    EXPECT_NE(r.body.find(R"("text":"still here")"), std::string::npos) << r.body;
  }
};

TEST_F(HttpHardening, ATrailerFieldOf70000BytesIs431AndTheServerLives) {
  start();
  raw_client c(port_);
  // The server may refuse and close before it has read the whole trailer (EPIPE here).
  (void)c.send_until_refused(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
      "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
      "\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-T: " +
      std::string(70000, 'a') + "\r\n\r\n");
  response r;
  // The server answers once the trailer passes its limit; it may close before reading it all.
  if (c.read_response(r)) {
    EXPECT_EQ(r.status, 431U);
  }
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(5)));
  expect_serving();
}

TEST_F(HttpHardening, InvalidUtf8InHeadersNeverMakesInvalidJson) {
  start();
  const auto sid = open_session(port_);
  struct bad_header {
    std::string name, value;
    bool refused;  ///< else the server may serve the request as if the bytes were not there
  };
  const std::vector<bad_header> cases = {
      {"MCP-Protocol-Version", "\xF5", true},
      {"MCP-Protocol-Version", "2025-11-25\xC0\xAF", true},
      {"Mcp-Session-Id", "\xFF\xFE" + sid, true},
      {"Accept", "application/json\x80", false},
      {"Content-Type", "application/json\xF5", false},
  };
  for (const auto& [name, value, refused] : cases) {
    auto headers = post_headers(sid);
    std::erase_if(headers, [&key = name](const auto& h) { return h.first == key; });
    headers.emplace_back(name, value);
    auto r = request(port_, "POST", call_body("3", "echo", R"({"text":"x"})"), headers);
    if (refused) {
      EXPECT_GE(r.status, 400U) << name;
    }
    EXPECT_TRUE(valid_utf8(r.body)) << name << ": " << r.body;
    if (!r.body.empty()) {
      EXPECT_TRUE(mcp::parse_json(r.body)) << name << ": " << r.body;
    }
  }
  expect_serving();
}

TEST_F(HttpHardening, InvalidUtf8InJsonEscapesIsNeverEchoedRaw) {
  start();
  const auto sid = open_session(port_);
  // A lone surrogate escape in the method name and in the id: whatever the parser makes of
  // them, what comes back is valid UTF-8 and valid JSON.
  for (const std::string body :
       {R"({"jsonrpc":"2.0","id":4,"method":"tools/\udc80"})",
        R"({"jsonrpc":"2.0","id":"\ud800","method":"nope"})",
        R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"\udfff"}})"}) {
    auto r = request(port_, "POST", body, post_headers(sid));
    EXPECT_TRUE(valid_utf8(r.body)) << body << " -> " << r.body;
    if (!r.body.empty()) {
      EXPECT_TRUE(mcp::parse_json(r.body)) << body << " -> " << r.body;
    }
  }
  expect_serving();
}

TEST_F(HttpHardening, AnIdleKeptAliveConnectionIsClosedAfterItsOwnTimeout) {
  start({.header_timeout = std::chrono::seconds(20),
         .keep_alive_timeout = std::chrono::milliseconds(400)});
  raw_client c(port_);
  c.send_raw(make_request("POST", port_, initialize_body(), post_headers({}, "")));
  response r;
  ASSERT_TRUE(c.read_response(r));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("keep-alive"), "timeout=0");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(10)));
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(5));  // not the 20 s header timeout
}

TEST_F(HttpHardening, TheHeaderTimeoutStartsAtARequestsFirstByte) {
  start({.header_timeout = std::chrono::milliseconds(300),
         .keep_alive_timeout = std::chrono::seconds(20)});
  raw_client c(port_);
  c.send_raw(make_request("POST", port_, initialize_body(), post_headers({}, "")));
  response r;
  ASSERT_TRUE(c.read_response(r));
  // Idle for longer than the header timeout: still open, and serving.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  c.send_raw(make_request("POST", port_, initialize_body(), post_headers({}, "")));
  ASSERT_TRUE(c.read_response(r));
  EXPECT_EQ(r.status, 200U);
  // A request begun and never finished: closed by the header timeout.
  c.send_raw("POST /mcp HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(5)));
}

TEST_F(HttpHardening, OurClientDoesNotReuseAConnectionTheServerIsAboutToClose) {
  start({.keep_alive_timeout = std::chrono::seconds(2)});  // Keep-Alive: timeout=2
  auto conn = mcp::make_http_client_connection({.url = http_->url()}).value();
  mcp::client_session client(conn);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  ASSERT_TRUE(client.call_tool("echo", {{"text", "a"}}));
  const auto opened = conn->connections_opened();
  ASSERT_TRUE(client.call_tool("echo", {{"text", "b"}}));
  EXPECT_EQ(conn->connections_opened(), opened);  // reused while fresh
  // Idle past the server's timeout less a second: a new connection, and the call succeeds.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto r = client.call_tool("echo", {{"text", "c"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(conn->connections_opened(), opened + 1);
  conn->close();
}

}  // namespace
}  // namespace mcp_test
