// Changes between the servers of one service (server_options::shared on a real redis-server,
// src/server_relay.cpp): two mcp::server objects stand for two processes; a session of B,
// written to a recording connection, hears a resource updated and a tool added on A, once each;
// a server of another service (another key prefix) hears nothing; a message marked
// `everywhere` is what the transport sees.
#include <mcp/redis.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redis/redis_server.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::test::redis_server;
using mcp::test::unique_prefix;

/// Records what a session sends, with the `everywhere` mark.
class recorder final : public mcp::connection {
 public:
  void send(std::string message, const mcp::send_context& ctx) override {
    const std::lock_guard lock(mu_);
    sent_.push_back((ctx.everywhere ? "everywhere " : "") + message);
    cv_.notify_all();
  }
  void close() override {}
  /// How many messages holding `text` were sent, once `n` of them came or after `wait`.
  std::size_t count(const std::string& text, std::size_t n, std::chrono::milliseconds wait = 5s) {
    std::unique_lock lock(mu_);
    std::size_t found = 0;
    cv_.wait_for(lock, wait, [&] {
      found = 0;
      for (const auto& m : sent_) {
        if (m.find(text) != std::string::npos) ++found;
      }
      return found >= n;
    });
    return found;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> sent_;
};

std::shared_ptr<mcp::shared_state> shared_on(const redis_server& r, const std::string& prefix) {
  auto s = mcp::make_redis_shared_state({.url = r.url(), .key_prefix = prefix});
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : nullptr;
}

void add_doc(mcp::server& s) {
  s.add_resource({.uri = "demo://doc", .name = "doc"}, [] { return std::string("text"); });
}

/// A 2025-11-25 session of `s`, initialized, subscribed to demo://doc.
std::shared_ptr<mcp::server_session> subscribed_session(mcp::server& s,
                                                        const std::shared_ptr<recorder>& to) {
  auto session = s.open_session(to);
  session->receive(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  session->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  session->receive(
      R"({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"demo://doc"}})");
  return session;
}

TEST(shared_changes, a_change_on_one_server_reaches_the_sessions_of_the_others_once) {
  redis_server r;
  ASSERT_TRUE(r.running()) << "redis-server did not start";
  const auto prefix = unique_prefix();
  mcp::server a({.shared = shared_on(r, prefix)});
  mcp::server b({.shared = shared_on(r, prefix)});
  mcp::server other({.shared = shared_on(r, unique_prefix())});  // another service
  for (auto* s : {&a, &b, &other}) add_doc(*s);
  auto on_a = std::make_shared<recorder>();
  auto on_b = std::make_shared<recorder>();
  auto on_other = std::make_shared<recorder>();
  auto sa = subscribed_session(a, on_a);
  auto sb = subscribed_session(b, on_b);
  auto so = subscribed_session(other, on_other);
  ASSERT_EQ(on_b->count(R"("id":2)", 1), 1U);  // subscribed

  // A resource updated on A: A's session and B's hear it, marked for every process.
  a.notify_resource_updated("demo://doc");
  EXPECT_EQ(on_a->count(
                "everywhere {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated", 1),
            1U);
  EXPECT_EQ(on_b->count(
                "everywhere {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated", 1),
            1U);
  // A tool added on A: its list changed there, and every session hears it (after the debounce).
  a.add_tool({.name = "late", .description = "added at runtime"},
             [](mcp::tool_context&, const mcp::json::object&) { return mcp::call_tool_result{}; });
  EXPECT_EQ(on_a->count("notifications/tools/list_changed", 1), 1U);
  EXPECT_EQ(on_b->count("notifications/tools/list_changed", 1), 1U);
  // Once each (a process ignores its own messages; B does not publish what it heard).
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(on_a->count("notifications/resources/updated", 2, 0ms), 1U);
  EXPECT_EQ(on_b->count("notifications/resources/updated", 2, 0ms), 1U);
  EXPECT_EQ(on_a->count("notifications/tools/list_changed", 2, 0ms), 1U);
  EXPECT_EQ(on_b->count("notifications/tools/list_changed", 2, 0ms), 1U);
  EXPECT_EQ(on_other->count("notifications/resources/updated", 1, 0ms), 0U);
  EXPECT_EQ(on_other->count("notifications/tools/list_changed", 1, 0ms), 0U);
  // The registration stays where it was made: B lists no "late".
  EXPECT_EQ(b.tool_names().size(), 0U);
  EXPECT_EQ(a.tool_names().size(), 1U);
  for (const auto& s : {sa, sb, so}) s->close();
}

}  // namespace
