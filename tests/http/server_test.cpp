// Integration tests of the Streamable HTTP server: every status code, SSE framing, sessions,
// resumption, security checks and limits, over real sockets on 127.0.0.1.
#include <mcp/http_server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>

#include "http_test_util.hpp"

namespace mcp_test {
namespace {

class HttpServer : public http_fixture {};

TEST_F(HttpServer, InitializeAnswersJsonWithSecureSessionId) {
  start();
  auto r = request(port_, "POST", initialize_body(), post_headers({}, ""));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "application/json");
  const auto sid = r.header("mcp-session-id");
  ASSERT_EQ(sid.size(), 32U);  // 128 bits, hex
  for (const char c : sid) EXPECT_TRUE(c >= 0x21 && c <= 0x7E);
  EXPECT_NE(r.body.find("\"protocolVersion\":\"2025-11-25\""), std::string::npos);
  EXPECT_NE(open_session(port_), sid);
  EXPECT_EQ(http_->session_count(), 2U);
}

TEST_F(HttpServer, NotificationGets202WithNoBody) {
  start();
  auto sid = open_session(port_);
  auto r = request(port_, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                   post_headers(sid));
  EXPECT_EQ(r.status, 202U);
  EXPECT_TRUE(r.body.empty());
}

TEST_F(HttpServer, ToolCallAnswersJson) {
  start();
  auto sid = open_session(port_);
  auto r = request(port_, "POST", call_body("2", "echo", R"({"text":"hi"})"), post_headers(sid));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.body.find(R"("text":"hi")"), std::string::npos);
  // A handler running on the executor (not inline) answers JSON as well.
  r = request(port_, "POST", call_body("3", "whoami", R"({"text":""})"), post_headers(sid));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.body.find(R"("text":"local")"), std::string::npos);
}

TEST_F(HttpServer, HeaderNamesAndTheHostMatchWhateverTheirCase) {
  start();
  auto sid = open_session(port_);
  auto r = request(port_, "POST", call_body("2", "echo", R"({"text":"hi"})"),
                   {{"HOST", "LocalHost:" + std::to_string(port_)},
                    {"content-TYPE", "application/json"},
                    {"aCCEPT", "application/json, TEXT/EVENT-STREAM"},
                    {"mcp-SESSION-id", sid},
                    {"Mcp-Protocol-VERSION", "2025-11-25"}});
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_NE(r.body.find(R"("text":"hi")"), std::string::npos) << r.body;
  // The session header spelled another way is still the session header: a wrong id is 404.
  r = request(port_, "POST", call_body("3", "echo", R"({"text":"hi"})"),
              {{"Content-Type", "application/json"},
               {"Accept", "application/json, text/event-stream"},
               {"MCP-SESSION-ID", "00000000000000000000000000000000"}});
  EXPECT_EQ(r.status, 404U) << r.body;
}

TEST_F(HttpServer, SessionHeaderMissingIs400UnknownIs404) {
  start();
  open_session(port_);
  auto r = request(port_, "POST", call_body("2", "echo", R"({"text":"hi"})"), post_headers());
  EXPECT_EQ(r.status, 400U);
  EXPECT_NE(r.body.find("\"error\""), std::string::npos);
  r = request(port_, "POST", call_body("2", "echo", R"({"text":"hi"})"),
              post_headers("00000000000000000000000000000000"));
  EXPECT_EQ(r.status, 404U);
}

TEST_F(HttpServer, AcceptContentTypeAndJsonErrors) {
  start();
  auto sid = open_session(port_);
  const auto body = call_body("2", "echo", R"({"text":"hi"})");
  auto r = request(port_, "POST", body,
                   {{"Content-Type", "application/json"},
                    {"Accept", "application/json"},
                    {"Mcp-Session-Id", sid}});
  EXPECT_EQ(r.status, 406U);
  EXPECT_NE(r.body.find("\"code\":-32600"), std::string::npos);
  r = request(port_, "POST", body,
              {{"Content-Type", "text/plain"},
               {"Accept", "application/json, text/event-stream"},
               {"Mcp-Session-Id", sid}});
  EXPECT_EQ(r.status, 415U);
  r = request(port_, "POST", "{not json", post_headers(sid));
  EXPECT_EQ(r.status, 400U);
  EXPECT_NE(r.body.find("-32700"), std::string::npos);
  r = request(port_, "POST", R"({"jsonrpc":"2.0","id":5,"method":7})", post_headers(sid));
  EXPECT_EQ(r.status, 400U);
  // Content-Type with parameters is fine.
  r = request(port_, "POST", body,
              {{"Content-Type", "application/json; charset=utf-8"},
               {"Accept", "application/json, text/event-stream"},
               {"Mcp-Session-Id", sid}});
  EXPECT_EQ(r.status, 200U);
}

TEST_F(HttpServer, ProtocolVersionHeader) {
  start();
  auto sid = open_session(port_);
  const auto body = call_body("2", "echo", R"({"text":"hi"})");
  EXPECT_EQ(request(port_, "POST", body, post_headers(sid, "1999-01-01")).status, 400U);
  EXPECT_EQ(request(port_, "POST", body, post_headers(sid, "")).status, 200U);  // assumed
  EXPECT_EQ(request(port_, "POST", body, post_headers(sid, "2025-03-26")).status, 200U);
}

TEST_F(HttpServer, MethodsAndPaths) {
  start({.allow_get_stream = false, .allow_delete = false});
  auto sid = open_session(port_);
  auto r = request(port_, "GET", "", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}});
  EXPECT_EQ(r.status, 405U);
  EXPECT_EQ(r.header("allow"), "GET, POST, DELETE");
  EXPECT_EQ(request(port_, "DELETE", "", {{"Mcp-Session-Id", sid}}).status, 405U);
  EXPECT_EQ(request(port_, "PUT", "", {{"Mcp-Session-Id", sid}}).status, 405U);
  EXPECT_EQ(request(port_, "POST", initialize_body(), post_headers(), "/other").status, 404U);
}

TEST_F(HttpServer, DeleteEndsTheSession) {
  start();
  auto sid = open_session(port_);
  EXPECT_EQ(request(port_, "DELETE", "", {{"Mcp-Session-Id", sid}}).status, 200U);
  EXPECT_EQ(
      request(port_, "POST", call_body("2", "echo", R"({"text":"x"})"), post_headers(sid)).status,
      404U);
  EXPECT_EQ(request(port_, "DELETE", "", {{"Mcp-Session-Id", sid}}).status, 404U);
  EXPECT_EQ(request(port_, "DELETE", "", {}).status, 400U);
  EXPECT_EQ(http_->session_count(), 0U);
}

TEST_F(HttpServer, OriginAndHostChecks) {
  start({.allowed_origins = {"https://app.example.com"}});
  const auto body = initialize_body();
  auto with = [&](std::vector<std::pair<std::string, std::string>> extra) {
    auto h = post_headers({}, "");
    for (auto& e : extra) h.push_back(e);
    return request(port_, "POST", body, h);
  };
  EXPECT_EQ(with({{"Origin", "http://evil.example.com"}}).status, 403U);
  EXPECT_EQ(with({{"Host", "evil.example.com"}, {"Origin", "http://evil.example.com"}}).status,
            421U);
  EXPECT_EQ(with({{"Host", "evil.example.com:" + std::to_string(port_)}}).status, 421U);
  EXPECT_EQ(with({{"Host", "localhost:" + std::to_string(port_)}}).status, 200U);
  EXPECT_EQ(with({{"Host", "[::1]:" + std::to_string(port_)}}).status, 200U);
  EXPECT_EQ(with({{"Origin", "http://localhost:6274"}}).status, 200U);
  auto r = with({{"Origin", "http://localhost:6274"}});
  EXPECT_TRUE(r.header("access-control-allow-origin").empty());  // not configured: no CORS
  r = with({{"Origin", "https://app.example.com"}});
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://app.example.com");
  EXPECT_NE(r.header("access-control-expose-headers").find("Mcp-Session-Id"), std::string::npos);
  r = request(port_, "OPTIONS", "",
              {{"Origin", "https://app.example.com"}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(r.status, 204U);
  EXPECT_EQ(r.header("access-control-allow-origin"), "https://app.example.com");
}

TEST_F(HttpServer, OversizedBodyGets413) {
  start({.max_body_bytes = 1024});
  auto sid = open_session(port_);
  auto r = request(port_, "POST",
                   call_body("2", "echo", "{\"text\":\"" + std::string(4096, 'x') + "\"}"),
                   post_headers(sid));
  EXPECT_EQ(r.status, 413U);
}

TEST_F(HttpServer, OversizedHeadersGet431) {
  start({.max_header_bytes = 512});
  auto h = post_headers({}, "");
  h.emplace_back("X-Padding", std::string(2048, 'p'));
  EXPECT_EQ(request(port_, "POST", initialize_body(), h).status, 431U);
}

TEST_F(HttpServer, SseStreamCapGives503) {
  start({.max_sse_streams = 1});
  auto sid = open_session(port_);
  raw_client c(port_);
  c.send_raw(
      make_request("GET", port_, "", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}}));
  response r;
  ASSERT_TRUE(c.read_until(r, [](const std::string& b) { return b.find("\n\n") != b.npos; }));
  for (int i = 0; i < 100 && http_->sse_stream_count() == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(http_->sse_stream_count(), 1U);
  auto other = open_session(port_);
  EXPECT_EQ(request(port_, "GET", "", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", other}})
                .status,
            503U);
  c.close();
  for (int i = 0; i < 100 && http_->sse_stream_count() != 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(http_->sse_stream_count(), 0U);  // a client that goes away frees its slot
}

TEST_F(HttpServer, ExpectContinueIsAnswered) {
  start();
  const auto body = initialize_body();
  raw_client c(port_);
  auto headers = post_headers({}, "");
  headers.emplace_back("Expect", "100-continue");
  auto req = make_request("POST", port_, body, headers);
  c.send_raw(req.substr(0, req.size() - body.size()));  // the head only
  response cont;
  ASSERT_TRUE(c.read_response(cont, 2s));
  EXPECT_EQ(cont.status, 100U);
  c.send_raw(body);
  response r;
  ASSERT_TRUE(c.read_response(r));
  EXPECT_EQ(r.status, 200U);
}

TEST_F(HttpServer, SlowHeaderClientIsDisconnectedAndDoesNotBlockOthers) {
  start({.io_threads = 1, .header_timeout = std::chrono::milliseconds(3000)});
  raw_client slow(port_);
  slow.send_raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // ... and nothing more
  // Meanwhile the single I/O thread serves others, well before the slow one's header timeout.
  const auto t0 = std::chrono::steady_clock::now();
  auto r = request(port_, "POST", initialize_body(), post_headers({}, ""));
  EXPECT_EQ(r.status, 200U);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(slow.closed_by_peer(10s));
}

TEST_F(HttpServer, AuthenticatorPrincipalReachesToolsAndBindsSession) {
  start({.authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
    const auto auth = req.header("authorization");
    if (auth == "Bearer alice") return mcp::principal{.subject = "alice"};
    if (auth == "Bearer bob") return mcp::principal{.subject = "bob"};
    return std::nullopt;
  }});
  auto r = request(port_, "POST", initialize_body(), post_headers({}, ""));
  EXPECT_EQ(r.status, 401U);
  EXPECT_EQ(r.header("www-authenticate"), "Bearer");
  auto h = post_headers({}, "");
  h.emplace_back("Authorization", "Bearer alice");
  r = request(port_, "POST", initialize_body(), h);
  ASSERT_EQ(r.status, 200U);
  const auto sid = r.header("mcp-session-id");
  auto ha = post_headers(sid);
  ha.emplace_back("Authorization", "Bearer alice");
  r = request(port_, "POST", call_body("2", "whoami", R"({"text":""})"), ha);
  EXPECT_NE(r.body.find(R"("text":"alice")"), std::string::npos) << r.body;
  auto hb = post_headers(sid);
  hb.emplace_back("Authorization", "Bearer bob");
  EXPECT_EQ(request(port_, "POST", call_body("3", "whoami", R"({"text":""})"), hb).status, 404U);
}

TEST_F(HttpServer, ProgressTurnsTheAnswerIntoSseWithPrimingAndIds) {
  start();
  auto sid = open_session(port_);
  auto r = request(port_, "POST", call_body("7", "count", R"({"steps":3,"step_ms":10})", true),
                   post_headers(sid));
  ASSERT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  EXPECT_EQ(r.header("mcp-session-id"), sid);
  // Priming event first: an id, a retry, empty data.
  ASSERT_EQ(r.body.rfind("id: ", 0), 0U) << r.body;
  const auto first_blank = r.body.find("\n\n");
  const auto priming = r.body.substr(0, first_blank);
  EXPECT_NE(priming.find("retry: 1000"), std::string::npos);
  EXPECT_NE(priming.find("data: "), std::string::npos);
  auto events = r.events();
  ASSERT_EQ(events.size(), 4U);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NE(events[i].data.find("notifications/progress"), std::string::npos);
    EXPECT_NE(events[i].data.find("\"progress\":" + std::to_string(i + 1)), std::string::npos);
    ids.insert(events[i].id);
  }
  EXPECT_NE(events[3].data.find("counted 3"), std::string::npos);
  ids.insert(events[3].id);
  EXPECT_EQ(ids.size(), 4U);
}

TEST_F(HttpServer, AlwaysSseMode) {
  start({.response_mode = mcp::http_response_mode::always_sse});
  auto sid = open_session(port_);
  auto r = request(port_, "POST", call_body("2", "echo", R"({"text":"hi"})"), post_headers(sid));
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  auto events = r.events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_NE(events[0].data.find(R"("text":"hi")"), std::string::npos);
}

TEST_F(HttpServer, ResumeAfterDisconnectLosesAndDuplicatesNothing) {
  start();
  auto sid = open_session(port_);
  std::string first_part;
  std::string last_id;
  {
    raw_client c(port_);
    c.send_raw(make_request("POST", port_,
                            call_body("9", "count", R"({"steps":6,"step_ms":60})", true),
                            post_headers(sid)));
    response partial;
    ASSERT_TRUE(c.read_until(partial, [](const std::string& b) {
      return b.find("\"progress\":2") != std::string::npos &&
             b.find("\n\n", b.find("\"progress\":2")) != std::string::npos;
    }));
    first_part = partial.body;
    c.close();  // the connection drops mid-stream
  }
  mcp::http_detail::sse_parser p1;
  std::vector<std::string> datas;
  p1.feed(first_part, [&](const auto& e) { datas.push_back(e.data); });
  last_id = p1.last_event_id();
  ASSERT_FALSE(last_id.empty());
  std::this_thread::sleep_for(150ms);  // more events happen while nobody listens
  auto r = resume(port_, sid, last_id);
  ASSERT_EQ(r.status, 200U);
  for (const auto& e : r.events()) datas.push_back(e.data);
  ASSERT_EQ(datas.size(), 7U) << first_part << "\n---\n" << r.body;
  for (int i = 0; i < 6; ++i) {
    EXPECT_NE(datas[static_cast<std::size_t>(i)].find("\"progress\":" + std::to_string(i + 1)),
              std::string::npos);
  }
  EXPECT_NE(datas[6].find("counted 6"), std::string::npos);

  // Replays are bound to the stream and the session.
  auto other = open_session(port_);
  EXPECT_EQ(
      request(
          port_, "GET", "",
          {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", other}, {"Last-Event-ID", last_id}})
          .status,
      404U);
  EXPECT_EQ(
      request(
          port_, "GET", "",
          {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}, {"Last-Event-ID", "garbage"}})
          .status,
      400U);
}

TEST_F(HttpServer, ToolClosesItsStreamAndTheClientResumesForTheResult) {
  start();
  auto sid = open_session(port_);
  // The POST's SSE response carries the priming event, then ends without the result.
  raw_client c(port_);
  c.send_raw(make_request("POST", port_, call_body("4", "poll", R"({"steps":1,"step_ms":150})"),
                          post_headers(sid)));
  response first;
  ASSERT_TRUE(c.read_response(first));
  EXPECT_EQ(first.status, 200U);
  EXPECT_EQ(first.header("content-type"), "text/event-stream");
  EXPECT_EQ(first.body.find("closed="), std::string::npos) << first.body;
  EXPECT_TRUE(first.events().empty()) << first.body;  // only the priming event
  mcp::http_detail::sse_parser parser;
  parser.feed(first.body, [](const auto&) {});
  const auto last_id = parser.last_event_id();
  ASSERT_FALSE(last_id.empty()) << first.body;
  EXPECT_TRUE(c.closed_by_peer(2s));  // the server ended the connection
  // Resumption from the priming event's id delivers the result, once: while the call runs, and
  // again after it finished (from the event store).
  for (int i = 0; i < 2; ++i) {
    auto r = resume(port_, sid, last_id);
    ASSERT_EQ(r.status, 200U);
    const auto rest = r.events();
    ASSERT_EQ(rest.size(), 1U) << r.body;
    EXPECT_NE(rest[0].data.find("closed=true"), std::string::npos);
    EXPECT_NE(rest[0].data.find("\"id\":4"), std::string::npos);
  }
}

TEST_F(HttpServer, ToolClosesAStreamThatAlreadyCarriedProgress) {
  start();
  auto sid = open_session(port_);
  raw_client c(port_);
  c.send_raw(make_request("POST", port_,
                          call_body("6", "poll", R"({"steps":1,"step_ms":150})", true),
                          post_headers(sid)));
  response first;
  ASSERT_TRUE(c.read_response(first));
  const auto events = first.events();
  ASSERT_EQ(events.size(), 1U) << first.body;  // the progress notification, not the result
  EXPECT_NE(events[0].data.find("notifications/progress"), std::string::npos);
  EXPECT_TRUE(c.closed_by_peer(2s));
  auto r = resume(port_, sid, events[0].id);
  ASSERT_EQ(r.status, 200U);
  const auto rest = r.events();
  ASSERT_EQ(rest.size(), 1U) << r.body;
  EXPECT_NE(rest[0].data.find("closed=true"), std::string::npos);
}

TEST_F(HttpServer, StreamIsNotClosedWhenTheClientCouldNotResume) {
  start();
  // 2025-06-18: no priming event, so no event id to resume from: the answer comes as JSON.
  auto sid = open_session(port_, "2025-06-18");
  auto r = request(port_, "POST", call_body("5", "poll", R"({"steps":1,"step_ms":10})"),
                   post_headers(sid, "2025-06-18"));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.body.find("closed=false"), std::string::npos) << r.body;
}

TEST_F(HttpServer, SessionsExpireWhenIdle) {
  start({.session_idle_timeout = std::chrono::milliseconds(200)});
  auto sid = open_session(port_);
  EXPECT_EQ(
      request(port_, "POST", call_body("2", "echo", R"({"text":"x"})"), post_headers(sid)).status,
      200U);
  std::this_thread::sleep_for(700ms);
  EXPECT_EQ(
      request(port_, "POST", call_body("3", "echo", R"({"text":"x"})"), post_headers(sid)).status,
      404U);
  EXPECT_EQ(http_->session_count(), 0U);
}

TEST_F(HttpServer, ACancelledCallsStreamEndsWithoutAnAnswer) {
  // The cancelled call gets no answer: its stream ends, and the session can still expire.
  start({.session_idle_timeout = std::chrono::milliseconds(300)});
  const auto sid = open_session(port_);
  auto call = std::async(std::launch::async, [&] {
    return request(port_, "POST", call_body("9", "sleep", R"({"steps":1,"step_ms":2000})"),
                   post_headers(sid));
  });
  // Cancelled until its stream ends: a cancellation that comes before the call is ignored.
  const std::string cancel =
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})";
  for (int i = 0; i < 15 && call.wait_for(100ms) != std::future_status::ready; ++i) {
    EXPECT_EQ(request(port_, "POST", cancel, post_headers(sid)).status, 202U);
  }
  ASSERT_EQ(call.wait_for(1ms), std::future_status::ready) << "the stream was not ended";
  const auto r = call.get();
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.body.find("\"id\":9"), std::string::npos) << r.body;
  std::this_thread::sleep_for(1500ms);  // idle longer than the timeout (the sweep runs each second)
  EXPECT_EQ(http_->session_count(), 0U) << "a cancelled call kept the session busy";
}

TEST_F(HttpServer, MaxSessionsGives503) {
  start({.max_sessions = 1});
  open_session(port_);
  EXPECT_EQ(request(port_, "POST", initialize_body(), post_headers({}, "")).status, 503U);
}

TEST_F(HttpServer, StandaloneGetStreamCarriesListChanged) {
  start();
  auto sid = open_session(port_);
  raw_client c(port_);
  c.send_raw(make_request("GET", port_, "",
                          {{"Accept", "text/event-stream"},
                           {"Mcp-Session-Id", sid},
                           {"MCP-Protocol-Version", "2025-11-25"}}));
  response r;
  ASSERT_TRUE(c.read_until(r, [](const std::string& b) { return b.find("\n\n") != b.npos; }));
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  // A second standalone stream is refused while the first is open.
  EXPECT_EQ(
      request(port_, "GET", "", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}}).status,
      409U);
  server_.set_tool_enabled("echo", false);
  ASSERT_TRUE(c.read_until(r, [](const std::string& b) {
    return b.find("notifications/tools/list_changed") != b.npos;
  }));
  EXPECT_EQ(http_->sse_stream_count(), 1U);
  c.close();
}

TEST_F(HttpServer, BatchesOnlyWith20250326) {
  start();
  auto sid = open_session(port_, "2025-03-26");
  const std::string batch = "[" + call_body("1", "echo", R"({"text":"a"})") + "," +
                            call_body("2", "echo", R"({"text":"b"})") + "]";
  auto r = request(port_, "POST", batch, post_headers(sid, "2025-03-26"));
  ASSERT_EQ(r.status, 200U);
  EXPECT_EQ(r.body.front(), '[');
  EXPECT_NE(r.body.find(R"("text":"a")"), std::string::npos);
  EXPECT_NE(r.body.find(R"("text":"b")"), std::string::npos);
  auto sid2 = open_session(port_);
  EXPECT_EQ(request(port_, "POST", batch, post_headers(sid2)).status, 400U);
}

TEST_F(HttpServer, StatelessModeServesSelfContainedRequests) {
  start({.stateless = true});
  auto r = request(port_, "POST", initialize_body(), post_headers({}, ""));
  EXPECT_EQ(r.status, 200U);
  EXPECT_TRUE(r.header("mcp-session-id").empty());
  for (int i = 0; i < 3; ++i) {
    r = request(port_, "POST", call_body("1", "echo", R"({"text":"hi"})"), post_headers());
    EXPECT_EQ(r.status, 200U);
    EXPECT_NE(r.body.find(R"("text":"hi")"), std::string::npos) << r.body;
  }
  r = request(port_, "POST", call_body("1", "count", R"({"steps":2,"step_ms":5})", true),
              post_headers({}, "2025-03-26"));
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  EXPECT_NE(r.body.find("counted 2"), std::string::npos);
  EXPECT_EQ(request(port_, "GET", "", {{"Accept", "text/event-stream"}}).status, 405U);
  EXPECT_EQ(request(port_, "DELETE", "", {}).status, 405U);
  EXPECT_EQ(http_->session_count(), 0U);
}

TEST_F(HttpServer, KeepAliveServesManyRequestsOnOneConnection) {
  start();
  auto sid = open_session(port_);
  raw_client c(port_);
  for (int i = 0; i < 20; ++i) {
    c.send_raw(make_request("POST", port_,
                            call_body(std::to_string(100 + i), "echo", R"({"text":"k"})"),
                            post_headers(sid)));
    response r;
    ASSERT_TRUE(c.read_response(r));
    EXPECT_EQ(r.status, 200U);
  }
  // An SSE answer on a kept-alive connection, then another request on it.
  c.send_raw(make_request("POST", port_,
                          call_body("200", "count", R"({"steps":2,"step_ms":5})", true),
                          post_headers(sid)));
  response s;
  ASSERT_TRUE(c.read_response(s));
  EXPECT_EQ(s.header("content-type"), "text/event-stream");
  c.send_raw(make_request("POST", port_, call_body("201", "echo", R"({"text":"after"})"),
                          post_headers(sid)));
  response after;
  ASSERT_TRUE(c.read_response(after));
  EXPECT_NE(after.body.find("after"), std::string::npos);
}

TEST(HttpServerOptions, SetListenAddressTakesHostPortAndRefusesTheRest) {
  mcp::http_server_options o;
  ASSERT_TRUE(mcp::set_listen_address(o, "127.0.0.1:8080"));
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 8080);
  ASSERT_TRUE(mcp::set_listen_address(o, "[::1]:0"));
  EXPECT_EQ(o.host, "::1");
  EXPECT_EQ(o.port, 0);
  ASSERT_TRUE(mcp::set_listen_address(o, "localhost:65535"));
  EXPECT_EQ(o.host, "localhost");
  EXPECT_EQ(o.port, 65535);
  // Each of these leaves the options as they were (the demo once died on "host:abc").
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1:", ":8080", "host:abc", "host:65536", "host:-1", "host:8080x",
        "::1:8080", "[::1:8080", "[]:8080", "host:99999999999999999999"}) {
    EXPECT_FALSE(mcp::set_listen_address(o, bad)) << bad;
    EXPECT_EQ(o.host, "localhost") << bad;
    EXPECT_EQ(o.port, 65535) << bad;
  }
}

TEST(HttpServerStart, AnAddressInUseOrNotAnAddressIsAnErrorAndTheServerCanStartAgain) {
  mcp::server srv({.info = {.name = "t", .version = "1"}});
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor taken(io, {boost::asio::ip::make_address("127.0.0.1"), 0},
                                       /*reuse_address=*/false);
  const auto port = taken.local_endpoint().port();
  mcp::http_server http(srv, {.host = "127.0.0.1", .port = port});
  auto started = http.start();
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, static_cast<int>(mcp::errc::connection_closed));
  EXPECT_EQ(
      started.error().message.rfind("cannot listen on 127.0.0.1:" + std::to_string(port) + ": ", 0),
      0U)
      << started.error().message;
  taken.close();  // the address is free now: the same server starts
  ASSERT_TRUE(http.start()) << "a failed start leaves the server startable";
  EXPECT_EQ(http.port(), port);
  EXPECT_THROW((void)http.start(), std::logic_error);  // twice: a programmer error
  http.stop();

  mcp::http_server bad(srv, {.host = "not-an-address", .port = 0});
  auto refused = bad.start();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, static_cast<int>(mcp::errc::invalid_params));
  EXPECT_EQ(refused.error().message, "not an IP address: not-an-address");
}

}  // namespace
}  // namespace mcp_test
