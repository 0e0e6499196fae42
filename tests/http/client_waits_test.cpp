// The HTTP client transport runs a request whose sender waits for it on the sender's own
// thread (once a kept-alive connection is ready). These tests hold it to what a waiting sender is
// owed whatever the server does: a timeout, a cancellation from another thread and close() each end
// the wait promptly, and the server is told of the cancellation, against a server that reads the
// request and then never answers (no response head at all, or an SSE head and silence).
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mcp_test {
namespace {

using namespace std::chrono_literals;

/// Answers notifications with 202 and leaves every request without an answer: `sse` sends
/// the head of an SSE stream first, with a session id. A DELETE gets no answer either. Counts
/// the cancellations it was sent.
class silent_server {
 public:
  explicit silent_server(bool sse) : sse_(sse) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("silent_server: cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  ~silent_server() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accepter_.join();
    {
      std::lock_guard lock(mu_);
      for (const int c : conns_) ::shutdown(c, SHUT_RDWR);
    }
    for (auto& t : handlers_) t.join();
    for (const int c : conns_) ::close(c);
  }
  silent_server(const silent_server&) = delete;
  silent_server& operator=(const silent_server&) = delete;

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/mcp";
  }
  /// Waits up to 5 s for `n` cancellations; true when they came.
  bool cancellations_reach(int n) const {
    for (int i = 0; i < 500 && cancellations_.load() < n; ++i) std::this_thread::sleep_for(10ms);
    return cancellations_.load() >= n;
  }
  std::atomic<int> requests{0};

 private:
  void accept_loop() {
    for (;;) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      conns_.push_back(c);
      handlers_.emplace_back([this, c] { serve(c); });
    }
  }
  void serve(int c) {
    std::string buf;
    std::string body;
    while (read_request(c, buf, body)) {
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
  /// Reads one request (head and Content-Length body) into `body`; false at end of stream.
  static bool read_request(int c, std::string& buf, std::string& body) {
    for (;;) {
      const auto head_end = buf.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::size_t length = 0;
        const auto cl = buf.find("Content-Length: ");
        if (cl != std::string::npos && cl < head_end) length = std::stoul(buf.substr(cl + 16));
        if (buf.size() >= head_end + 4 + length) {
          body = buf.substr(head_end + 4, length);
          buf.erase(0, head_end + 4 + length);
          return true;
        }
      }
      char tmp[4096];
      const auto n = ::recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<std::size_t>(n));
    }
  }

  bool sse_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread accepter_;
  std::mutex mu_;
  std::vector<int> conns_;
  std::vector<std::thread> handlers_;
  std::atomic<int> cancellations_{0};
};

struct session {
  std::shared_ptr<mcp::http_client_connection> conn;
  std::unique_ptr<mcp::client_session> client;
  explicit session(const std::string& url) {
    // A short read timeout bounds close()'s DELETE, which the silent server never answers.
    conn = mcp::http_client_connection::create({.url = url, .read_timeout = 2000ms});
    client = std::make_unique<mcp::client_session>(conn);
    conn->on_receive([c = client.get()](std::string_view m) { c->receive(m); });
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
    while (sent.load() == 0) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(100ms);
    s.client->cancel(sent.load(), "the user pressed stop");
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
    while (!sent.load()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(100ms);
    s.client->close();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.client->call_tool("echo", {},
                               {.timeout = 60000ms, .on_sent = [&](std::int64_t) { sent = true; }});
  const auto took = since(t0);
  closer.join();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed)) << r.error().message;
  // Not held by close()'s DELETE, which the server leaves unanswered for 2 s (the SSE case).
  EXPECT_LT(took, 1500ms);
}

INSTANTIATE_TEST_SUITE_P(NoHeadOrSilentSse, HttpClientWaits, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Sse" : "NoHead"; });

}  // namespace
}  // namespace mcp_test
