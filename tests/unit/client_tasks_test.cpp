// mcp/client.hpp, tasks: call_tool_as_task, get/result/list/cancel and wait_task against our
// server in process, and against the TypeScript SDK's task server as a child process.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>
#include <mcp/transport/process.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "support/task_tools.hpp"

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

using mcp::test::sleep_in;

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
std::unique_ptr<mcp::server> make_server() {
  auto owner = std::make_unique<mcp::server>(mcp::server_options{.task_poll_interval = 20ms});
  mcp::test::add_sleeper_and_asker(*owner);
  return owner;
}

struct wire_pair {
  explicit wire_pair(mcp::server& s, mcp::client_options o = {}) {
    auto [server_end, client_end] = mcp::make_memory_pair();
    session = s.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client = std::make_shared<mcp::client_session>(client_end, std::move(o));
    // Held while a message is delivered: a task still running may send one (its status) while
    // the test ends.
    client_end->on_receive([weak = std::weak_ptr<mcp::client_session>(client)](std::string_view m) {
      if (auto c = weak.lock()) c->receive(m);
    });
    EXPECT_TRUE(client->initialize());
  }
  ~wire_pair() { session->close(); }
  wire_pair(const wire_pair&) = delete;
  wire_pair& operator=(const wire_pair&) = delete;
  std::shared_ptr<mcp::server_session> session;
  std::shared_ptr<mcp::client_session> client;
};

TEST(client_tasks, a_tool_called_as_a_task_gives_its_result_and_its_status) {
  auto owner = make_server();
  auto& s = *owner;
  wire_pair w(s);
  auto t = w.client->call_tool_as_task("sleeper", object{{"ms", 30}}, 60s);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->status, mcp::task_status::working);
  EXPECT_EQ(t->ttl_ms, 60000);
  auto done = w.client->wait_task(t->id, 5s);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, mcp::task_status::completed);
  auto r = w.client->task_result(t->id);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("structuredContent").at("slept"), 30);
  auto all = w.client->list_all_tasks();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1U);
  EXPECT_EQ((*all)[0].id, t->id);
}

TEST(client_tasks, cancel_and_the_errors_of_a_task_that_ended) {
  auto owner = make_server();
  auto& s = *owner;
  wire_pair w(s);
  auto t = w.client->call_tool_as_task("sleeper", object{{"ms", 5000}});
  ASSERT_TRUE(t);
  auto c = w.client->cancel_task(t->id);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->status, mcp::task_status::cancelled);
  auto again = w.client->cancel_task(t->id);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, -32602);
  EXPECT_FALSE(w.client->task_result(t->id));
  auto unknown = w.client->get_task("nope");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, -32602);
}

TEST(client_tasks, a_task_that_elicits_is_answered_by_the_request_handlers) {
  auto owner = make_server();
  auto& s = *owner;
  std::atomic<int> asked{0};
  wire_pair w(
      s, {.capabilities = object{{"elicitation", object{}}},
          .request_handlers = {{"elicitation/create", [&](const object& params, std::stop_token) {
                                  ++asked;
                                  EXPECT_TRUE(params.at("_meta").as_object().contains(
                                      "io.modelcontextprotocol/related-task"));
                                  return mcp::result<object>(object{
                                      {"action", "accept"}, {"content", object{{"name", "Ada"}}}});
                                }}}});
  auto t = w.client->call_tool_as_task("asker");
  ASSERT_TRUE(t) << t.error().message;
  auto r = w.client->task_result(t->id, {.timeout = 10s});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("content").at(0).at("text"), "hello Ada");
  EXPECT_EQ(asked.load(), 1);
}

TEST(client_tasks, a_server_without_tasks_is_not_asked) {
  mcp::server plain;
  plain.add_tool({.name = "sleeper", .description = "d"}, [](const sleep_in&) { return "x"; });
  wire_pair w(plain);
  auto t = w.client->call_tool_as_task("sleeper");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, static_cast<int>(mcp::errc::not_supported));
}

/// The TypeScript SDK's task server (../shared/bench/ts-tasks-server.mjs), when the SDK is
/// installed (../shared/bench/setup.sh); else the test says why it is skipped.
TEST(client_tasks, works_against_the_typescript_sdk_task_server) {
  const std::filesystem::path server =
      std::filesystem::path(MCP_SOURCE_DIR) / ".." / "shared" / "bench" / "ts-tasks-server.mjs";
  const char* home = std::getenv("HOME");
  const std::filesystem::path loader =
      std::filesystem::path(home ? home : "/") / ".cache" / "mcp-bench" / "sdk-loader.mjs";
  if (!std::filesystem::exists(server) || !std::filesystem::exists(loader)) {
    GTEST_SKIP() << "SKIPPED: needs ../shared/bench/ts-tasks-server.mjs and its SDK "
                    "(../shared/bench/setup.sh)";
  }
  auto launched =
      mcp::launch_server({.argv = {"/usr/bin/env", "node", server.string(), "--poll-ms", "20"}});
  ASSERT_TRUE(launched) << launched.error().message;
  auto& client = *launched->client;
  auto t = client.call_tool_as_task("slow_task", object{{"steps", 2}, {"step_ms", 10}});
  ASSERT_TRUE(t) << t.error().message;
  auto done = client.wait_task(t->id, 10s);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, mcp::task_status::completed);
  auto r = client.task_result(t->id);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("content").at(0).at("text"), "done 2");
  auto listed = client.list_all_tasks();
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_FALSE(listed->empty());
  client.close();  // shuts the child down: stdin closed, then SIGTERM if it lingers
}

}  // namespace
