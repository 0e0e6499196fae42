// The demo server binary over Streamable HTTP: launched with --http 127.0.0.1:0 (its URL read
// from its stderr through mcp/transport/process.hpp), then driven with the HTTP client transport.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace {

class DemoServer : public ::testing::Test {
 protected:
  void SetUp() override {
    auto proc = mcp::make_process_connection(
        {.argv = {MCP_DEMO_SERVER, "--http", "127.0.0.1:0"},
         .on_stderr =
             [this](std::string_view line) {
               std::lock_guard lock(mu_);
               const auto at = line.find("http://");
               if (url_.empty() && at != std::string_view::npos) {
                 url_ = std::string(line.substr(at, line.find(' ', at) - at));
                 cv_.notify_all();
               }
             },
         .grace = std::chrono::milliseconds(100)});  // it serves HTTP: SIGTERM ends it
    ASSERT_TRUE(proc) << proc.error().message;
    server_ = std::move(*proc);
    server_->start([](std::string_view) {});
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, std::chrono::seconds(10), [this] { return !url_.empty(); }));
  }
  void TearDown() override {
    if (!server_) return;
    server_->close();
    EXPECT_EQ(server_->exit_status(), 0);
  }
  std::shared_ptr<mcp::process_connection> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string url_;
};

TEST_F(DemoServer, ListsAndCallsToolsOverHttp) {
  ASSERT_EQ(url_.rfind("http://127.0.0.1:", 0), 0U) << url_;
  auto conn = mcp::make_http_client_connection({.url = url_}).value();
  mcp::client_session client(conn);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  auto init = client.initialize();
  ASSERT_TRUE(init) << init.error().message;
  auto tools = client.list_all_tools();
  ASSERT_TRUE(tools);
  EXPECT_GE(tools->size(), 8U);
  auto echo = client.call_tool("echo", {{"text", "over http"}});
  ASSERT_TRUE(echo);
  EXPECT_NE(mcp::json::serialize(*echo).find("over http"), std::string::npos);
  int progress = 0;
  auto slow = client.call_tool("slow_count", {{"steps", 3}, {"step_ms", 10}},
                               {.on_progress = [&](const mcp::json::object&) { ++progress; }});
  ASSERT_TRUE(slow) << slow.error().message;
  EXPECT_EQ(progress, 3);
  conn->close();
}

TEST(DemoServerArguments, AMalformedHttpAddressIsAUsageErrorNotACrash) {
  for (const char* bad : {"host:abc", "127.0.0.1:99999", "127.0.0.1"}) {
    std::mutex mu;
    std::string said;
    auto proc = mcp::make_process_connection(
        {.argv = {MCP_DEMO_SERVER, "--http", bad, "--task-store", ":memory:"},
         .on_stderr = [&](std::string_view line) {
           std::lock_guard lock(mu);
           said += std::string(line) + "\n";
         }});
    ASSERT_TRUE(proc) << proc.error().message;
    (*proc)->start([](std::string_view) {});
    (*proc)->close();  // waits for it to end
    EXPECT_EQ((*proc)->exit_status(), 2) << bad;
    std::lock_guard lock(mu);
    EXPECT_NE(said.find("--http needs HOST:PORT"), std::string::npos) << bad << ": " << said;
  }
}

}  // namespace
