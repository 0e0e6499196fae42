// The HTTP client transport runs a request whose sender waits for it on the sender's own
// thread (once a kept-alive connection is ready). These tests hold it to what a waiting sender is
// owed whatever the server does: a timeout, a cancellation from another thread and close() each end
// the wait promptly, and the server is told of the cancellation, against a server that reads the
// request and then never answers (no response head at all, or an SSE head and silence).
// connect_http does not wait for the GET stream of a 2025-11-25 server that holds back its head.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "raw_http_server.hpp"

namespace mcp_test {
namespace {

using namespace std::chrono_literals;

/// Answers notifications with 202 and leaves every request without an answer: `sse` sends
/// the head of an SSE stream first, with a session id. A DELETE gets no answer either. Counts
/// the requests and the cancellations it was sent.
class silent_server {
 public:
  explicit silent_server(bool sse) : sse_(sse) {}
  [[nodiscard]] std::string url() const { return http_.url(); }
  /// Waits up to 5 s for `n` cancellations; true when they came.
  bool cancellations_reach(int n) const {
    for (int i = 0; i < 500 && cancellations_.load() < n; ++i) std::this_thread::sleep_for(10ms);
    return cancellations_.load() >= n;
  }
  std::atomic<int> requests{0};

 private:
  void serve(int c) {
    std::string buf;
    std::string body;
    while (read_http_request(c, buf, &body)) {
      if (body.empty()) continue;  // DELETE: left without an answer
      if (body.find("\"method\":\"notifications/cancelled\"") != std::string::npos) {
        ++cancellations_;
      }
      if (body.find("\"id\"") == std::string::npos ||
          body.find("\"method\":\"notifications/") != std::string::npos) {
        static constexpr std::string_view accepted =
            "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
        ::send(c, accepted.data(), accepted.size(), MSG_NOSIGNAL);
        continue;
      }
      ++requests;
      if (sse_) {
        static constexpr std::string_view head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s1\r\n\r\n";
        ::send(c, head.data(), head.size(), MSG_NOSIGNAL);
      }
    }
  }

  bool sse_;
  std::atomic<int> cancellations_{0};
  raw_http_server http_{[this](int c) { serve(c); }};  // last: it calls serve()
};

struct session {
  std::shared_ptr<mcp::http_client_connection> conn;
  std::shared_ptr<mcp::client_session> client;
  explicit session(const std::string& url) {
    // A short read timeout bounds close()'s DELETE, which the silent server never answers.
    conn = mcp::make_http_client_connection({.url = url, .read_timeout = 2000ms}).value();
    client = std::make_shared<mcp::client_session>(conn);
    // A delivery in flight as the session goes finds the client gone.
    conn->on_receive([weak = std::weak_ptr<mcp::client_session>(client)](std::string_view m) {
      if (auto c = weak.lock()) c->receive(m);
    });
  }
  ~session() {
    conn->close();
    client.reset();
  }
};

std::chrono::milliseconds since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               t0);
}

class HttpClientWaits : public ::testing::TestWithParam<bool> {};

/// A kept-alive connection for the session (the 202 to a notification), so that its calls
/// run on the calling thread.
void warm_up(session& s) {
  s.client->notify("notifications/initialized");
  ASSERT_EQ(s.conn->connections_opened(), 1U);
}

TEST_P(HttpClientWaits, ATimeoutEndsACallTheServerNeverAnswers) {
  silent_server srv(GetParam());
  session s(srv.url());
  warm_up(s);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.client->call_tool("echo", {}, {.timeout = 300ms});
  const auto took = since(t0);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::request_timeout)) << r.error().message;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3000ms);
  EXPECT_EQ(srv.requests.load(), 1);
  EXPECT_TRUE(srv.cancellations_reach(1));
  // The session goes on: the next call is sent, and times out the same way.
  auto again = s.client->call_tool("echo", {}, {.timeout = 200ms});
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(mcp::errc::request_timeout)) << again.error().message;
  EXPECT_EQ(srv.requests.load(), 2);
  EXPECT_TRUE(srv.cancellations_reach(2));
}

TEST_P(HttpClientWaits, ACancellationFromAnotherThreadEndsTheWait) {
  silent_server srv(GetParam());
  session s(srv.url());
  warm_up(s);
  std::atomic<std::int64_t> sent{0};
  std::thread canceller([&] {
    // Without on_sent within 10 s the client is closed instead: the wait ends, the test fails.
    for (const auto until = std::chrono::steady_clock::now() + 10s;
         sent.load() == 0 && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    std::this_thread::sleep_for(100ms);
    if (sent.load() == 0) {
      s.client->close();
    } else {
      s.client->cancel(sent.load(), "the user pressed stop");
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.client->call_tool(
      "echo", {}, {.timeout = 60000ms, .on_sent = [&](std::int64_t id) { sent = id; }});
  const auto took = since(t0);
  canceller.join();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::cancelled)) << r.error().message;
  EXPECT_LT(took, 3000ms);
  EXPECT_TRUE(srv.cancellations_reach(1));
}

TEST_P(HttpClientWaits, CloseEndsTheWait) {
  silent_server srv(GetParam());
  session s(srv.url());
  warm_up(s);
  std::atomic<bool> sent{false};
  std::thread closer([&] {
    for (const auto until = std::chrono::steady_clock::now() + 10s;
         !sent.load() && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    std::this_thread::sleep_for(100ms);
    s.client->close();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.client->call_tool("echo", {},
                               {.timeout = 60000ms, .on_sent = [&](std::int64_t) { sent = true; }});
  const auto took = since(t0);
  closer.join();
  EXPECT_TRUE(sent.load());
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed)) << r.error().message;
  // Not held by close()'s DELETE, which the server leaves unanswered for 2 s (the SSE case).
  EXPECT_LT(took, 1500ms);
}

/// A 2025-11-25 server that answers POSTs at once (initialize, tools/call: JSON; notifications:
/// 202; DELETE: 200) and never answers the standalone GET, whose connection it holds open.
class withheld_get_server {
 public:
  [[nodiscard]] std::string url() const { return http_.url(); }
  std::atomic<int> gets{0};

 private:
  static void answer(int c, std::string_view status, std::string_view type, std::string_view body) {
    std::string out = "HTTP/1.1 " + std::string(status) + "\r\nMcp-Session-Id: s1\r\n";
    if (!type.empty()) out += "Content-Type: " + std::string(type) + "\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    out += body;
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
  }
  void serve(int c) {
    std::string buf;
    std::string body;
    std::string head;
    while (read_http_request(c, buf, &body, &head)) {
      if (head.starts_with("GET ")) {
        ++gets;
        char tmp[256];
        while (::recv(c, tmp, sizeof tmp, 0) > 0) {
        }
        return;  // held until the client (or the end of the test) closes it
      }
      if (head.starts_with("DELETE ")) {
        answer(c, "200 OK", {}, {});
        continue;
      }
      auto v = mcp::parse_json(body);
      const auto* id = v && v->is_object() ? v->get_object().if_contains("id") : nullptr;
      if (id == nullptr) {
        answer(c, "202 Accepted", {}, {});
        continue;
      }
      const bool init = body.find("\"method\":\"initialize\"") != std::string::npos;
      mcp::json::object result =
          init ? mcp::json::object{{"protocolVersion", "2025-11-25"},
                                   {"capabilities",
                                    mcp::json::object{{"tools", mcp::json::object{}}}},
                                   {"serverInfo",
                                    mcp::json::object{{"name", "held"}, {"version", "1"}}}}
               : mcp::json::object{{"content", mcp::json::array{mcp::json::object{
                                                   {"type", "text"}, {"text", "ok"}}}}};
      answer(c, "200 OK", "application/json",
             mcp::json::serialize(
                 mcp::json::object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", result}}));
    }
  }

  raw_http_server http_{[this](int c) { serve(c); }};  // last: it calls serve()
};

TEST(HttpConnect, DoesNotWaitForTheGetStream) {
  withheld_get_server srv;
  mcp::client_options o;
  o.negotiate = mcp::negotiation::legacy;
  const auto t0 = std::chrono::steady_clock::now();
  // The read timeout would end the GET's wait for its head after 8 s: the connect must not.
  auto link = mcp::connect_http({.url = srv.url(), .read_timeout = 8000ms}, std::move(o));
  ASSERT_TRUE(link) << link.error().message;
  auto r = link->client->call_tool("anything", {});
  const auto took = since(t0);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(mcp::client_session::joined_text(*r), "ok");
  EXPECT_LT(took, 5000ms);  // well under a second when nothing waits for the GET
  for (int i = 0; i < 200 && srv.gets.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(srv.gets.load(), 1);  // the GET stream was asked for all the same
  link->client->close();
}

INSTANTIATE_TEST_SUITE_P(NoHeadOrSilentSse, HttpClientWaits, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Sse" : "NoHead"; });

}  // namespace
}  // namespace mcp_test
