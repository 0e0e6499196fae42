// The HTTP client transport against the HTTP server: a client_session over
// http_client_connection (initialize, calls, progress, parallel calls, resumption, expiry).
#include <mcp/client.hpp>
#include <mcp/http.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "http_test_util.hpp"

namespace mcp_test {
namespace {

struct client_pair {
  std::shared_ptr<mcp::http_client_connection> conn;
  std::unique_ptr<mcp::client_session> client;
  explicit client_pair(const std::string& url) {
    conn = mcp::http_client_connection::create({.url = url});
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
    http_->start();
  }
  void TearDown() override {
    if (http_) http_->stop();
  }
  mcp::server server_{mcp::server_options{.info = {.name = "http-test", .version = "1"}}};
  std::unique_ptr<mcp::http_server> http_;
};

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

TEST_F(HttpClient, ReusesKeptAliveConnectionsAndReconnectsWhenTheServerClosedThem) {
  // The server closes a kept-alive connection after 300 ms without a request.
  start({.header_timeout = std::chrono::milliseconds(300)});
  client_pair c(http_->url());
  ASSERT_TRUE(c.client->initialize());
  for (int i = 0; i < 20; ++i) {
    auto r = c.client->call_tool("echo", {{"text", "n" + std::to_string(i)}});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_NE(mcp::json::serialize(*r).find("n" + std::to_string(i)), std::string::npos);
  }
  const auto after_burst = c.conn->connections_opened();
  EXPECT_LE(after_burst, 2U);  // initialize and the calls share one or two connections
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // the server closes the idle ones
  auto r = c.client->call_tool("echo", {{"text", "after idle"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(mcp::json::serialize(*r).find("after idle"), std::string::npos);
  EXPECT_EQ(c.conn->connections_opened(), after_burst + 1);
}

TEST_F(HttpClient, ServerToClientRequestOnThePostStream) {
  start();
  auto conn = mcp::http_client_connection::create({.url = http_->url()});
  mcp::client_options o;
  o.capabilities = mcp::json::object{{"sampling", mcp::json::object{}}};
  o.request_handlers.emplace_back(
      "sampling/createMessage", [](const mcp::json::object&) -> mcp::result<mcp::json::object> {
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
  auto conn = mcp::http_client_connection::create({.url = http_->url()});
  std::atomic<int> list_changed{0};
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
