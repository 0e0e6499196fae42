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
#include <csignal>
#include <mutex>
#include <string>

#include "support/demo_http.hpp"

namespace {

class DemoServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.error.empty()) << server_.error;
    url_ = server_.url();
    ASSERT_FALSE(url_.empty()) << "the demo server did not say where it listens";
  }
  void TearDown() override { EXPECT_EQ(server_.stop(), 0); }  // SIGTERM is a clean stop

  mcp::test::demo_http_server server_;
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

// A supervisor that stops the server as soon as it says it listens: SIGTERM is caught from
// then on (a clean stop, exit 0), not the default death (143).
TEST(DemoServerSignals, ASigtermRightAfterTheListeningLineIsACleanStop) {
  for (int round = 0; round < 20; ++round) {
    std::mutex mu;
    std::condition_variable cv;
    bool listening = false;
    std::shared_ptr<mcp::process_connection> server;
    auto proc =
        mcp::make_process_connection({.argv = {MCP_DEMO_SERVER, "--http", "127.0.0.1:0"},
                                      .on_stderr =
                                          [&](std::string_view line) {
                                            if (line.find("listening on") == std::string_view::npos)
                                              return;
                                            std::lock_guard lock(mu);
                                            listening = true;
                                            cv.notify_all();
                                          },
                                      .grace = std::chrono::seconds(5)});
    ASSERT_TRUE(proc) << proc.error().message;
    server = std::move(*proc);
    server->start([](std::string_view) {});
    {
      std::unique_lock lock(mu);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return listening; }));
    }
    ASSERT_EQ(::kill(server->pid(), SIGTERM), 0);
    server->close();
    EXPECT_EQ(server->exit_status(), 0) << "round " << round;
  }
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
