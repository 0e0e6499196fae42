// The HTTP client transport against the HTTP server: a client_session over
// http_client_connection (initialize, calls, progress, parallel calls, resumption, expiry), and
// against raw servers (kept-alive connections, broken answers, an authorizer's headers).
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "http_test_util.hpp"
#include "raw_http_server.hpp"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mcp_test {
namespace {

using namespace std::chrono_literals;

struct client_pair {
  std::shared_ptr<mcp::http_client_connection> conn;
  std::unique_ptr<mcp::client_session> client;
  explicit client_pair(const std::string& url) {
    conn = mcp::make_http_client_connection({.url = url}).value();
    client = std::make_unique<mcp::client_session>(conn);
    conn->on_receive([c = client.get()](std::string_view m) { c->receive(m); });
  }
  ~client_pair() {
    conn->close();
    client.reset();
  }
};

class HttpClient : public ::testing::Test {
 protected:
  void start(mcp::http_server_options opts = {}) {
    add_test_tools(server_);
    http_ = std::make_unique<mcp::http_server>(server_, std::move(opts));
    http_->start().value();
  }
  void TearDown() override {
    if (http_) http_->stop();
  }
  mcp::server server_{mcp::server_options{.info = {.name = "http-test", .version = "1"}}};
  std::unique_ptr<mcp::http_server> http_;
};

TEST(HttpClientUrl, AUrlThatIsNotHttpOrHasNoUsablePortIsRefusedAtCreation) {
  for (const char* url :
       {"ftp://127.0.0.1:8080/mcp", "http://127.0.0.1:65536/mcp", "http://127.0.0.1:0/mcp",
        "http://127.0.0.1:/mcp", "http://localhost:99999999999999999999/mcp",
        "http://127.0.0.1:99999/mcp", "http://127.0.0.1:131073/mcp"}) {
    const auto refused = mcp::make_http_client_connection({.url = url});
    ASSERT_FALSE(refused) << url;
    EXPECT_TRUE(refused.error().is(mcp::errc::invalid_params)) << refused.error().message;
  }
  EXPECT_TRUE(mcp::make_http_client_connection({.url = "http://127.0.0.1:65535/m"}));
  EXPECT_TRUE(mcp::make_http_client_connection({.url = "http://localhost/mcp"}));
}

TEST_F(HttpClient, InitializeListAndCall) {
  start();
  client_pair c(http_->url());
  auto init = c.client->initialize();
  ASSERT_TRUE(init) << init.error().message;
  EXPECT_FALSE(c.conn->session_id().empty());
  EXPECT_EQ(c.conn->protocol_version(), "2025-11-25");
  auto tools = c.client->list_all_tools();
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->size(), 6U);
  auto r = c.client->call_tool("echo", {{"text", "hello"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(mcp::json::serialize((*r)["content"]), R"([{"type":"text","text":"hello"}])");
}

TEST_F(HttpClient, AWaitingCallerCarriesItsOwnExchangeOnAKeptConnection) {
  start();
  std::mutex mu;  // before the connection, whose threads deliver until it goes
  std::vector<std::thread::id> answered_on;  // the thread each answer was delivered on
  auto conn = mcp::make_http_client_connection({.url = http_->url()}).value();
  mcp::client_session client(conn);
  conn->on_receive([&](std::string_view m) {
    if (m.find("\"result\"") != std::string_view::npos) {
      std::lock_guard lock(mu);
      answered_on.push_back(std::this_thread::get_id());
    }
    client.receive(m);
  });
  ASSERT_TRUE(client.initialize());  // its connection is kept for the calls
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.call_tool("echo", {{"text", "x"}}));
  std::lock_guard lock(mu);
  ASSERT_EQ(answered_on.size(), 4U);
  for (std::size_t i = 1; i < answered_on.size(); ++i) {
    EXPECT_EQ(answered_on[i], std::this_thread::get_id()) << "call " << i;
  }
  EXPECT_EQ(conn->connections_opened(), 1U);
}

TEST_F(HttpClient, ProgressOverSse) {
  start();
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  std::vector<double> seen;
  std::mutex mu;
  auto r = c.client->call_tool("count", {{"steps", 4}, {"step_ms", 10}},
                               {.on_progress = [&](const mcp::json::object& p) {
                                 std::lock_guard lock(mu);
                                 seen.push_back(p.at("progress").to_number<double>());
                               }});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(seen, (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(HttpClient, ResumesWhenTheServerClosesTheStreamEarly) {
  start({.sse_retry = std::chrono::milliseconds(50), .sse_close_after_events = 1});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  std::vector<double> seen;
  std::mutex mu;
  auto r = c.client->call_tool("count", {{"steps", 5}, {"step_ms", 30}},
                               {.on_progress = [&](const mcp::json::object& p) {
                                 std::lock_guard lock(mu);
                                 seen.push_back(p.at("progress").to_number<double>());
                               }});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("counted 5"), std::string::npos);
  EXPECT_EQ(seen, (std::vector<double>{1, 2, 3, 4, 5}));  // nothing lost, nothing twice
  EXPECT_GE(c.conn->resumptions(), 4U);
}

TEST_F(HttpClient, ResumesWhenAToolClosesItsStream) {
  start({.sse_retry = std::chrono::milliseconds(20)});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  auto r = c.client->call_tool("poll", {{"steps", 1}, {"step_ms", 100}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("closed=true"), std::string::npos);
  EXPECT_EQ(c.conn->resumptions(), 1U);
}

TEST_F(HttpClient, KeepsResumingALongCallThatClosesItsStreamRepeatedly) {
  // More closes than max_resume_attempts (5): each resumption that brings news is free.
  start({.sse_retry = std::chrono::milliseconds(10)});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  std::vector<double> seen;
  std::mutex mu;
  auto r = c.client->call_tool("poll", {{"steps", 8}, {"step_ms", 100}},
                               {.on_progress = [&](const mcp::json::object& p) {
                                 std::lock_guard lock(mu);
                                 seen.push_back(p.at("progress").to_number<double>());
                               }});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("closed=true"), std::string::npos);
  EXPECT_EQ(seen, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));  // nothing lost or twice
  EXPECT_GE(c.conn->resumptions(), 6U);
}

TEST_F(HttpClient, ReusesKeptAliveConnectionsAndReconnectsWhenTheServerClosedThem) {
  // The server closes a kept-alive connection after 2.3 s without a request (it says
  // `Keep-Alive: timeout=2`, so the client reuses one for up to a second).
  start({.keep_alive_timeout = std::chrono::milliseconds(2300)});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  for (int i = 0; i < 20; ++i) {
    auto r = c.client->call_tool("echo", {{"text", "n" + std::to_string(i)}});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_NE(mcp::json::serialize(*r).find("n" + std::to_string(i)), std::string::npos);
  }
  const auto after_burst = c.conn->connections_opened();
  EXPECT_LE(after_burst, 2U);  // initialize and the calls share one or two connections
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));  // the server closes the idle ones
  auto r = c.client->call_tool("echo", {{"text", "after idle"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("after idle"), std::string::npos);
  EXPECT_EQ(c.conn->connections_opened(), after_burst + 1);
}

/// A raw HTTP server that answers the first request on a connection (kept alive) and reads the
/// second, then closes the connection without answering. Counts the requests it read.
struct answer_once_server {
  std::atomic<int> requests{0};
  raw_http_server http{[this](int c) {
    std::string buf;
    for (int on_this = 0; read_http_request(c, buf); ++on_this) {
      ++requests;
      if (on_this > 0) break;  // read, then dropped without an answer
      static constexpr std::string_view answer =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n"
          R"({"jsonrpc":"2.0","id":1,"result":{}})";
      ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
    }
  }};
  [[nodiscard]] std::string url() const { return http.url(); }
};

TEST(HttpClientPool, NeverSendsAPostTwiceWhenTheServerDroppedItAfterReadingIt) {
  answer_once_server srv;
  std::mutex mu;  // before the connection, whose threads deliver into `got` until it goes
  std::vector<std::string> got;
  auto conn = mcp::make_http_client_connection({.url = srv.url()}).value();
  conn->on_receive([&](std::string_view m) {
    std::lock_guard lock(mu);
    got.emplace_back(m);
  });
  auto wait_for = [&](std::size_t n) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu);
        if (got.size() >= n) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  const mcp::jsonrpc::request_id id1 = 1;
  const mcp::jsonrpc::request_id id2 = 2;
  conn->send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {.request = &id1});
  ASSERT_TRUE(wait_for(1));
  EXPECT_NE(got[0].find("\"result\""), std::string::npos);
  // The second request goes on the kept-alive connection, which the server drops after
  // reading it: the caller gets an error, and the request is not sent again.
  conn->send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {.request = &id2});
  ASSERT_TRUE(wait_for(2));
  EXPECT_NE(got[1].find("\"error\""), std::string::npos) << got[1];
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(srv.requests.load(), 2);
  EXPECT_EQ(conn->connections_opened(), 1U);
  conn->close();
}

/// Sends a ping on `conn` and returns what `conn` delivered for it (one message, "" when nothing
/// came within 10 s) and how long that took; closes `conn`.
std::pair<std::string, std::chrono::milliseconds> ping_through(
    const std::shared_ptr<mcp::http_client_connection>& conn) {
  std::mutex mu;
  std::condition_variable cv;
  std::string got;
  conn->on_receive([&](std::string_view m) {
    std::lock_guard lock(mu);
    got = m;
    cv.notify_all();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const mcp::jsonrpc::request_id id = 1;
  conn->send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {.request = &id});
  std::unique_lock lock(mu);
  cv.wait_for(lock, std::chrono::seconds(10), [&] { return !got.empty(); });
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  std::string out = got;
  lock.unlock();
  conn->close();
  return {out, took};
}

/// Writes `text` to connection `c`; false once the peer is gone.
bool send_text(int c, std::string_view text) {
  return ::send(c, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

/// A server that reads one request on each connection, answers `bytes` and closes it.
raw_http_server answering(std::string bytes) {
  return raw_http_server([bytes = std::move(bytes)](int c) {
    std::string buf;
    if (read_http_request(c, buf)) send_text(c, bytes);
  });
}

TEST(HttpClientAuthorizer, AddsItsHeadersToEachRequestAndSeesEachAnswersHeaders) {
  // An authorizer with a proof per request (as DPoP has): the server asks for a nonce once.
  struct proving final : mcp::http_authorizer {
    std::mutex mu;
    int proofs = 0;
    std::vector<std::string> seen;  // what request_headers, answered and refused were given
    std::string authorization() override { return "Scheme tok"; }
    mcp::http_header_list request_headers(std::string_view method, std::string_view url) override {
      std::lock_guard lock(mu);
      seen.push_back(std::string(method) + " " + std::string(url));
      return {{"Authorization", "Scheme tok"}, {"Proof", "p" + std::to_string(++proofs)}};
    }
    void answered(int status, const mcp::http_header_reader& header) override {
      std::lock_guard lock(mu);
      seen.push_back(std::to_string(status) + " nonce=" + header("Nonce"));
    }
    bool refused(int status, std::string_view challenge, std::string_view sent) override {
      std::lock_guard lock(mu);
      seen.push_back(std::to_string(status) + " " + std::string(challenge) + " | " +
                     std::string(sent));
      return true;
    }
  };
  std::mutex mu;
  std::vector<std::string> heads;
  raw_http_server srv([&](int c) {
    for (std::string buf;;) {
      char tmp[4096];
      while (buf.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::recv(c, tmp, sizeof tmp, 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<std::size_t>(n));
      }
      std::size_t count = 0;
      {
        std::lock_guard lock(mu);
        heads.push_back(buf.substr(0, buf.find("\r\n\r\n")));
        count = heads.size();
      }
      if (!read_http_request(c, buf)) return;
      const std::string ok = R"({"jsonrpc":"2.0","id":1,"result":{}})";
      send_text(c, count == 1 ? "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Scheme "
                                "error=\"use_nonce\"\r\nNonce: n1\r\nContent-Length: 2\r\n\r\n{}"
                              : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                "Content-Length: " +
                                    std::to_string(ok.size()) + "\r\n\r\n" + ok);
    }
  });
  const auto authorizer = std::make_shared<proving>();
  const auto [got, took] = ping_through(
      mcp::make_http_client_connection({.url = srv.url(), .authorizer = authorizer}).value());
  EXPECT_NE(got.find("\"result\""), std::string::npos) << got;
  std::lock_guard lock(mu);
  ASSERT_EQ(heads.size(), 2U);
  EXPECT_NE(heads[0].find("\r\nAuthorization: Scheme tok\r\nProof: p1"), std::string::npos)
      << heads[0];
  EXPECT_NE(heads[1].find("\r\nProof: p2"), std::string::npos) << heads[1];
  EXPECT_EQ(authorizer->seen,
            (std::vector<std::string>{"POST " + srv.url(), "401 nonce=n1",
                                      R"(401 Scheme error="use_nonce" | Scheme tok)",
                                      "POST " + srv.url(), "200 nonce="}));
  (void)took;
}

TEST(HttpClientAuthorizer, SendsTheRequestAgainOnANewConnectionAfterAnAuthorization) {
  // The server refuses the first request (keep-alive announced) and, like a server whose idle
  // timer fires as the retry arrives, drops any further request on that connection unanswered.
  struct after_login final : mcp::http_authorizer {
    std::atomic<bool> logged_in{false};
    std::string authorization() override { return logged_in ? "Bearer tok" : ""; }
    bool refused(int, std::string_view, std::string_view) override {
      logged_in = true;
      return true;
    }
  };
  struct counts {
    std::atomic<int> connections{0};
    std::atomic<int> on_refused_connection{0};  // requests read after the 401 on its connection
  };
  const auto seen = std::make_shared<counts>();
  raw_http_server srv([seen](int c) {
    ++seen->connections;
    bool refused_here = false;
    for (std::string buf, head; read_http_request(c, buf, nullptr, &head);) {
      if (refused_here) {
        ++seen->on_refused_connection;
        return;  // dropped without an answer
      }
      if (head.find("\r\nAuthorization: Bearer tok") == std::string::npos) {
        refused_here = true;
        send_text(c,
                  "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n"
                  "Keep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n{}");
        continue;
      }
      const std::string ok = R"({"jsonrpc":"2.0","id":1,"result":{}})";
      send_text(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                       std::to_string(ok.size()) + "\r\n\r\n" + ok);
    }
  });
  auto conn = mcp::make_http_client_connection(
                  {.url = srv.url(), .authorizer = std::make_shared<after_login>()})
                  .value();
  const auto [got, took] = ping_through(conn);
  EXPECT_NE(got.find("\"result\""), std::string::npos) << got;
  EXPECT_EQ(seen->on_refused_connection.load(), 0);
  EXPECT_EQ(conn->connections_opened(), 2U);
  (void)took;
}

TEST(HttpClientPool, AResponseHeadThatNeverEndsFailsTheRequestAtTheReadTimeout) {
  // A header line every 50 ms: every read gets something, the head never ends. The read
  // timeout bounds the whole head, not each read.
  raw_http_server srv([](int c) {
    std::string buf;
    if (!read_http_request(c, buf) || !send_text(c, "HTTP/1.1 200 OK\r\n")) return;
    for (int i = 0; i < 200 && send_text(c, "X-Drip: a\r\n"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const auto [got, took] = ping_through(
      mcp::make_http_client_connection({.url = srv.url(), .read_timeout = 400ms}).value());
  EXPECT_NE(got.find("\"error\""), std::string::npos) << got;
  EXPECT_NE(got.find("timeout"), std::string::npos) << got;
  EXPECT_GE(took, 350ms);
  EXPECT_LT(took, 3000ms);
}

TEST(HttpClientPool, AResponseCutShortFailsTheRequestInsteadOfDeliveringThePart) {
  // The connection closes after 24 of the 80 bytes.
  raw_http_server srv = answering(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n"
      R"({"jsonrpc":"2.0","id":1,)");
  const auto [got, took] =
      ping_through(mcp::make_http_client_connection({.url = srv.url()}).value());
  EXPECT_NE(got.find("\"error\""), std::string::npos) << got;
  EXPECT_NE(got.find("HTTP response failed"), std::string::npos) << got;
  EXPECT_LT(took, 3000ms);
}

TEST(HttpClientPool, AHugeTrailerFieldFailsTheRequestNotTheProcess) {
  // The header limit refuses a huge field in the head with an error code; a trailer field of
  // 64 KiB or more is refused by Beast's field container with an exception instead.
  raw_http_server srv = answering(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\nTrailer: X-Huge\r\n\r\n24\r\n"
      R"({"jsonrpc":"2.0","id":1,"result":{}})"
      "\r\n0\r\nX-Huge: " +
      std::string(70000, 'a') + "\r\n\r\n");
  const auto [got, took] =
      ping_through(mcp::make_http_client_connection({.url = srv.url()}).value());
  EXPECT_NE(got.find("\"error\""), std::string::npos) << got;
  EXPECT_NE(got.find("HTTP response failed"), std::string::npos) << got;
  EXPECT_LT(took, 3000ms);
}

TEST_F(HttpClient, ServerToClientRequestOnThePostStream) {
  start();
  auto conn = mcp::make_http_client_connection({.url = http_->url()}).value();
  mcp::client_options o;
  o.capabilities = mcp::json::object{{"sampling", mcp::json::object{}}};
  o.request_handlers.emplace_back(
      "sampling/createMessage",
      [](const mcp::json::object&, std::stop_token) -> mcp::result<mcp::json::object> {
        return mcp::json::object{{"role", "assistant"},
                                 {"content", mcp::json::object{{"type", "text"}, {"text", "42"}}},
                                 {"model", "test"}};
      });
  mcp::client_session client(conn, o);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  auto r = client.call_tool("ask", {{"text", "question"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("client said: 42"), std::string::npos)
      << mcp::json::serialize(*r);
  conn->close();
}

TEST_F(HttpClient, TenParallelCallsOnOneSession) {
  start({.io_threads = 2});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  std::atomic<int> ok{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < 10; ++i) {
    threads.emplace_back([&, i] {
      auto r = i % 2 == 0 ? c.client->call_tool("sleep", {{"steps", 1}, {"step_ms", 150}})
                          : c.client->call_tool("echo", {{"text", std::to_string(i)}});
      if (r && !r->contains("isError")) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 10);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5 * 150ms);  // they overlapped
}

TEST_F(HttpClient, ExpiredSessionIsReportedSoTheCallerCanStartAgain) {
  start({.session_idle_timeout = std::chrono::milliseconds(150)});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  std::this_thread::sleep_for(600ms);
  auto r = c.client->call_tool("echo", {{"text", "late"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("404"), std::string::npos) << r.error().message;
  EXPECT_TRUE(c.conn->session_expired());
  client_pair fresh(http_->url());
  ASSERT_TRUE(fresh.client->initialize());
  EXPECT_TRUE(fresh.client->call_tool("echo", {{"text", "again"}}));
}

TEST_F(HttpClient, StandaloneStreamDeliversNotifications) {
  start();
  std::atomic<int> list_changed{0};  // before the connection, whose threads deliver until it goes
  auto conn = mcp::make_http_client_connection({.url = http_->url()}).value();
  mcp::client_session client(conn, {.on_notification = [&](std::string_view m, const auto&) {
                               if (m == "notifications/tools/list_changed") ++list_changed;
                             }});
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  EXPECT_EQ(conn->open_event_stream(), 200);
  std::this_thread::sleep_for(50ms);
  server_.set_tool_enabled("echo", false);
  for (int i = 0; i < 100 && list_changed.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(list_changed.load(), 1);
  conn->close();
  EXPECT_EQ(http_->session_count(), 0U);  // close() sent DELETE
}

TEST_F(HttpClient, StatelessServer) {
  start({.stateless = true});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  EXPECT_TRUE(c.conn->session_id().empty());
  auto r = c.client->call_tool("echo", {{"text", "s"}});
  ASSERT_TRUE(r) << r.error().message;
}

}  // namespace
}  // namespace mcp_test
