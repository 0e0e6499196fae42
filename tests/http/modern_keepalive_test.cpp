// 2026-07-28 requests one after another on one keep-alive connection (127.0.0.1): the session
// that served a request may serve the next one (src/session_reuse.hpp), and nothing of one
// request reaches the next: not its caller, not its client capabilities, not its log level;
// a call that becomes an input round or a long call does not hold the connection's later
// requests back.
#include <mcp/http_server.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "http_test_util.hpp"
#include "modern_util.hpp"

namespace mcp_test {
namespace {

class ModernKeepAlive : public http_fixture {
 protected:
  ModernKeepAlive()
      : http_fixture(mcp::server_options{.info = {.name = "http-test", .version = "1"}}) {
    add_modern_tools(server_);
    // Answered inline (on the thread that received the request): the session is idle once the
    // answer is written, the case in which it is kept.
    server_.add_tool(
        {.name = "whoami_now", .description = "caller subject", .run_inline = true},
        [](mcp::tool_context& ctx, const text_in&) -> std::string { return ctx.caller().subject; });
    server_.add_tool({.name = "say", .description = "logs its text", .run_inline = true},
                     [](mcp::tool_context& ctx, const text_in& in) -> std::string {
                       ctx.log(mcp::log_level::info, mcp::json::value(in.text));
                       return in.text;
                     });
    // Where the session keeps its caller: the same object while a session serves the same
    // caller again, another session's elsewhere.
    server_.add_tool({.name = "caller_at", .description = "caller's address", .run_inline = true},
                     [](mcp::tool_context& ctx, const text_in&) -> std::string {
                       return std::to_string(reinterpret_cast<std::uintptr_t>(&ctx.caller()));
                     });
  }
  /// POSTs `body` on `c` and reads the answer (status 0 when none came).
  static response exchange(raw_client& c, std::uint16_t port, const std::string& body,
                           header_list h) {
    c.send_raw(make_request("POST", port, body, h));
    response r;
    if (!c.read_response(r)) r.status = 0;
    return r;
  }
};

header_list as(header_list h, const std::string& who) {
  if (!who.empty()) h.emplace_back("Authorization", "Bearer " + who);
  return h;
}

TEST_F(ModernKeepAlive, EachRequestIsServedForItsOwnCaller) {
  start({.authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
    const auto auth = req.header("authorization");
    if (auth == "Bearer alice") return mcp::principal{.subject = "alice"};
    if (auth == "Bearer bob") return mcp::principal{.subject = "bob"};
    return std::nullopt;
  }});
  raw_client c(port_);
  const auto h = modern_headers("tools/call", "whoami_now");
  const std::vector<std::string> order = {"alice", "bob", "bob", "alice", "bob"};
  int id = 0;
  for (const auto& who : order) {
    ++id;
    auto r = exchange(c, port_, modern_call(std::to_string(id), "whoami_now", R"({"text":""})"),
                      as(h, who));
    ASSERT_EQ(r.status, 200U) << who << ": " << r.body;
    EXPECT_EQ(first_text(result_of(answer_of(r))), who) << r.body;
  }
  // An unauthenticated request on the same connection is refused, and the next one served.
  auto r = exchange(c, port_, modern_call("9", "whoami_now", R"({"text":""})"), h);
  EXPECT_EQ(r.status, 401U) << r.body;
}

TEST_F(ModernKeepAlive, CapabilitiesAndLogLevelBelongToTheirRequest) {
  start();
  raw_client c(port_);
  const std::string with_level = R"("_meta":{"io.modelcontextprotocol/protocolVersion":")" +
                                 std::string(modern_version) +
                                 R"(","io.modelcontextprotocol/clientCapabilities":{},)"
                                 R"("io.modelcontextprotocol/logLevel":"debug"})";
  for (int round = 0; round < 2; ++round) {
    // With a log level the message comes first (an SSE answer); without, none (JSON).
    auto r = exchange(c, port_, modern_call("1", "say", R"({"text":"loud"})", {}, with_level),
                      modern_headers("tools/call", "say"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_NE(r.body.find("notifications/message"), std::string::npos) << r.body;
    r = exchange(c, port_, modern_call("2", "say", R"({"text":"quiet"})"),
                 modern_headers("tools/call", "say"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(r.body.find("notifications/message"), std::string::npos) << r.body;
    EXPECT_EQ(first_text(result_of(answer_of(r))), "quiet") << r.body;
    // The elicitation capability of one request does not carry over to the next.
    r = exchange(
        c, port_,
        modern_call("3", "greet", R"({"text":"Hello"})", {}, modern_meta(R"({"elicitation":{}})")),
        modern_headers("tools/call", "greet"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(result_of(answer_of(r)).at("resultType"), "input_required") << r.body;
    r = exchange(c, port_, modern_call("4", "greet", R"({"text":"Hello"})"),
                 modern_headers("tools/call", "greet"));
    EXPECT_EQ(r.status, 400U) << r.body;
    EXPECT_EQ(error_code(answer_of(r)), -32021) << r.body;
  }
}

TEST_F(ModernKeepAlive, ALongCallOnOneConnectionDoesNotHoldAnotherBack) {
  start();
  raw_client slow(port_);
  slow.send_raw(make_request("POST", port_,
                             modern_call("1", "count", R"({"steps":3,"step_ms":100})"),
                             modern_headers("tools/call", "count")));
  raw_client c(port_);
  for (int i = 0; i < 3; ++i) {
    auto r = exchange(c, port_, modern_call(std::to_string(i + 10), "echo", R"({"text":"hi"})"),
                      modern_headers("tools/call", "echo"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(first_text(result_of(answer_of(r))), "hi") << r.body;
  }
  response r;
  ASSERT_TRUE(slow.read_response(r));
  EXPECT_NE(r.body.find("counted 3"), std::string::npos) << r.body;
  // Then the same connection serves another request.
  r = exchange(slow, port_, modern_call("2", "echo", R"({"text":"again"})"),
               modern_headers("tools/call", "echo"));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "again") << r.body;
}

// What a request's stream callbacks share is kept with the session for the connection's next
// request: calls answered inline and calls answered later (on the executor) alternate on one
// connection, each answered as its own; a long call the client walks away from ends without
// touching the requests served after it.
TEST_F(ModernKeepAlive, InlineAndLaterAnswersAlternateOnOneConnection) {
  start();
  {
    raw_client c(port_);
    for (int i = 0; i < 6; ++i) {
      const auto id = std::to_string(i + 1);
      if (i % 2 == 0) {
        auto r = exchange(c, port_, modern_call(id, "echo", R"({"text":"t)" + id + R"("})"),
                          modern_headers("tools/call", "echo"));
        ASSERT_EQ(r.status, 200U) << r.body;
        EXPECT_EQ(first_text(result_of(answer_of(r))), "t" + id) << r.body;
      } else {
        auto r = exchange(c, port_, modern_call(id, "count", R"({"steps":1,"step_ms":1})"),
                          modern_headers("tools/call", "count"));
        ASSERT_EQ(r.status, 200U) << r.body;
        EXPECT_NE(r.body.find("counted 1"), std::string::npos) << r.body;
      }
    }
    c.send_raw(make_request("POST", port_,
                            modern_call("7", "count", R"({"steps":20,"step_ms":20})"),
                            modern_headers("tools/call", "count")));
  }  // closed before the long call's answer
  raw_client d(port_);
  for (int i = 0; i < 3; ++i) {
    const auto id = std::to_string(i + 10);
    auto r = exchange(d, port_, modern_call(id, "echo", R"({"text":"d)" + id + R"("})"),
                      modern_headers("tools/call", "echo"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(first_text(result_of(answer_of(r))), "d" + id) << r.body;
  }
}

TEST_F(ModernKeepAlive, AStatelessServerServesEachRequestAsANewSession) {
  // 2025-11-25 on a stateless server: the log level one request sets is not the next one's,
  // and each request is its own caller's; then a 2026-07-28 request on the same connection.
  start({.stateless = true,
         .authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
           const auto auth = req.header("authorization");
           if (auth == "Bearer alice") return mcp::principal{.subject = "alice"};
           if (auth == "Bearer bob") return mcp::principal{.subject = "bob"};
           return std::nullopt;
         }});
  raw_client c(port_);
  const header_list h{{"Content-Type", "application/json"},
                      {"Accept", "application/json, text/event-stream"},
                      {"MCP-Protocol-Version", "2025-11-25"}};
  for (int round = 0; round < 2; ++round) {
    auto r = exchange(c, port_,
                      R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel",)"
                      R"("params":{"level":"error"}})",
                      as(h, "alice"));
    ASSERT_EQ(r.status, 200U) << r.body;
    r = exchange(c, port_, call_body("2", "say", R"({"text":"heard"})"), as(h, "bob"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_NE(r.body.find("notifications/message"), std::string::npos) << r.body;
    r = exchange(c, port_, call_body("3", "whoami_now", R"({"text":""})"), as(h, "alice"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_NE(r.body.find(R"("text":"alice")"), std::string::npos) << r.body;
    r = exchange(c, port_, modern_call("4", "whoami_now", R"({"text":""})"),
                 as(modern_headers("tools/call", "whoami_now"), "bob"));
    ASSERT_EQ(r.status, 200U) << r.body;
    EXPECT_EQ(first_text(result_of(answer_of(r))), "bob") << r.body;
  }
}

TEST_F(ModernKeepAlive, EachOfManyConnectionsKeepsItsOwnSession) {
  // More keep-alive connections than the handler's own list of spares holds (16), their
  // requests interleaved: each connection's next request is served by the session that served
  // its last one (its caller object is the same), and no two connections share one.
  start();
  constexpr std::size_t connections = 24;
  std::vector<std::unique_ptr<raw_client>> clients;
  for (std::size_t i = 0; i < connections; ++i)
    clients.push_back(std::make_unique<raw_client>(port_));
  const auto h = modern_headers("tools/call", "caller_at");
  std::vector<std::string> first(connections);
  for (std::size_t round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < connections; ++i) {
      auto r =
          exchange(*clients[i], port_,
                   modern_call(std::to_string(round * 100 + i), "caller_at", R"({"text":""})"), h);
      ASSERT_EQ(r.status, 200U) << r.body;
      const auto at = first_text(result_of(answer_of(r)));
      if (round == 0) {
        first[i] = at;
      } else {
        EXPECT_EQ(at, first[i]) << "connection " << i << ", round " << round;
      }
    }
  }
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), connections);
}

// A call's `_meta` kept as text on its way (src/detail/call_scan.hpp) is, when the tool asks for
// it, the object sent, as is one read into the request's params (not last there); a bad
// logLevel is refused as before, whichever way `_meta` was read.
TEST_F(ModernKeepAlive, AMetaKeptAsTextIsTheRequestMetaAsSent) {
  server_.add_tool({.name = "meta_now", .description = "its _meta", .run_inline = true},
                   [](mcp::tool_context& ctx, const text_in&) -> std::string {
                     return mcp::to_json_string(mcp::json::value(ctx.request_meta()));
                   });
  // On a pool thread, read once the request's handling on the I/O thread has moved on.
  server_.add_tool({.name = "meta_later", .description = "its _meta, later"},
                   [](mcp::tool_context& ctx, const text_in&) -> std::string {
                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                     return mcp::to_json_string(mcp::json::value(ctx.request_meta()));
                   });
  start();
  raw_client c(port_);
  const std::string meta = R"({ "io.modelcontextprotocol/clientInfo" : {"name":"c","v":[1]},)"
                           R"( "io.modelcontextprotocol/protocolVersion" : ")" +
                           std::string(modern_version) +
                           R"(", "io.modelcontextprotocol/logLevel":"error",)"
                           R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}})";
  const auto sent = mcp::parse_json(meta);
  ASSERT_TRUE(sent.has_value());
  for (const std::string tool : {"meta_later", "meta_now"}) {
    const auto h = modern_headers("tools/call", tool);
    for (const std::string& params :
         {R"("name":")" + tool + R"(","arguments":{"text":"x"},"_meta":)" + meta,
          R"("_meta":)" + meta + R"(,"name":")" + tool + R"(","arguments":{"text":"x"})"}) {
      const auto body =
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{)" + params + "}}";
      auto r = exchange(c, port_, body, h);
      ASSERT_EQ(r.status, 200U) << r.body;
      EXPECT_EQ(mcp::parse_json(first_text(result_of(answer_of(r)))).value(), *sent) << r.body;
    }
  }
  const auto h = modern_headers("tools/call", "meta_now");
  // Refused as before: a logLevel not a string (`_meta` read the general way) and one that is
  // a string but no level (kept as text, refused from its members).
  for (const char* level : {"7", R"("loud")"}) {
    auto bad = meta;
    bad.replace(bad.find(R"("error")"), 7, level);
    auto r = exchange(c, port_,
                      modern_call("2", "meta_now", R"({"text":"x"})", {}, R"("_meta":)" + bad), h);
    EXPECT_EQ(error_code(answer_of(r)), -32602) << level << ": " << r.body;
  }
}

}  // namespace
}  // namespace mcp_test
