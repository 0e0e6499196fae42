// What the nodes of a cluster tell each other (redis-server, demo_server processes with --redis,
// HAProxy; cluster_util.hpp): a 2025-11-25 elicitation asked by a tool on A answered through C
// (named nodes, and through the round-robin proxy); a message of A's for the session's GET
// stream held by B (a task's status) written there once; a list change made on C reaching the
// GET stream on B and a 2026-07-28 listen stream on B, once each; a node starting is no change,
// and a tool added once a node's HTTP server started, before its first session, is one.
#include <mcp/http_server.hpp>
#include <mcp/json.hpp>
#include <mcp/redis.hpp>
#include <mcp/server.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "redis/cluster_util.hpp"

namespace {

using namespace mcp_test;
using namespace std::chrono_literals;

/// Calls ask_name on `call_port` (its SSE stream stays there) and answers the elicitation it
/// asks through `answer_port`; the tool's final text.
std::string ask_and_answer(std::uint16_t call_port, std::uint16_t answer_port,
                           const std::string& sid, const std::string& name) {
  response ra;
  if (auto failed =
          answer_on_stream(call_port, answer_port, sid, call_body("\"ask\"", "ask_name", "{}"),
                           R"({"name":")" + name + R"("})", "Hello, ", ra);
      !failed.empty()) {
    return failed;
  }
  for (const auto& m : messages_in(ra.body)) {
    if (const auto* res = m.if_contains("result"); res != nullptr && res->is_object()) {
      return first_text(res->get_object());
    }
  }
  return "no result in: " + ra.body;
}

TEST_F(Cluster, AnElicitationAskedOnAIsAnsweredThroughC) {
  start(3);
  const auto sid = open_on(port(0), R"({"elicitation":{}})");
  // A's handler waits for the answer, which the client POSTs to C: C forwards it, A resumes.
  EXPECT_EQ(ask_and_answer(port(0), port(2), sid, "Ada"), "Hello, Ada!");
  // And the other way round, on a session B never served before.
  EXPECT_EQ(ask_and_answer(port(2), port(1), sid, "Grace"), "Hello, Grace!");
  // Answered on the node that asked, as on one process.
  EXPECT_EQ(ask_and_answer(port(1), port(1), sid, "Edsger"), "Hello, Edsger!");
}

TEST_F(Cluster, ThroughTheProxyElicitationsAreAnsweredWhereverTheAnswerLands) {
  start(3);
  proxy lb(ports());
  ASSERT_TRUE(lb.ready());
  const auto sid = open_on(lb.port(), R"({"elicitation":{}})");
  ASSERT_EQ(sid.size(), 32U);
  // Each request a new connection: the call and its answer reach different nodes in turn.
  for (int i = 0; i < 6; ++i) {
    const auto name = "n" + std::to_string(i);
    EXPECT_EQ(ask_and_answer(lb.port(), lb.port(), sid, name), "Hello, " + name + "!")
        << "round " << i;
  }
}

TEST_F(Cluster, AMessageForTheGetStreamOnBIsWrittenThereOnce) {
  start(2);
  const auto sid = open_on(port(0));
  get_stream g(port(1), sid);
  ASSERT_TRUE(g.open()) << g.body();
  // A runs the task and announces its status changes (once asked about it): A holds no GET
  // stream of the session, so it forwards them, and B writes them on its stream.
  auto r = request(port(0), "POST",
                   R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"slow_task",)"
                   R"("arguments":{"steps":2,"step_ms":50},"task":{}}})",
                   post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_TRUE(created.contains("task")) << r.body;
  const auto task = created.at("task").at("taskId");
  // The client asks about the task (on A, which runs it): from then on its changes are announced.
  auto got = request(port(0), "POST",
                     R"({"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":)" +
                         mcp::json::serialize(task) + "}}",
                     post_headers(sid));
  ASSERT_EQ(got.status, 200U) << got.body;
  ASSERT_EQ(result_of(answer_of(got)).at("status"), "working") << got.body;
  const auto completed = [&task](const std::string& body) {
    std::size_t n = 0;
    for (const auto& m : messages_in(body)) {
      const auto* method = m.if_contains("method");
      if (method == nullptr || *method != "notifications/tasks/status") continue;
      const auto& p = m.at("params");
      if (p.at("taskId") == task && p.at("status") == "completed") ++n;
    }
    return n;
  };
  ASSERT_TRUE(g.wait_until([&](const std::string& b) { return completed(b) >= 1; })) << g.body();
  // Once: no other node writes it again.
  EXPECT_FALSE(g.wait_until([&](const std::string& b) { return completed(b) >= 2; }, 500ms))
      << g.body();
}

TEST_F(Cluster, AListChangedOnCReachesTheStreamsOnB) {
  start(3);
  const auto sid = open_on(port(0));
  get_stream g(port(1), sid);
  ASSERT_TRUE(g.open()) << g.body();
  // A 2026-07-28 listen stream on B too.
  raw_client l(port(1));
  l.send_raw(make_request(
      "POST", port(1),
      modern_body("1", "subscriptions/listen", R"("notifications":{"toolsListChanged":true})"),
      modern_headers("subscriptions/listen")));
  response rl;
  ASSERT_TRUE(l.read_until(rl, [](const std::string& b) {
    return count_of(b, "notifications/subscriptions/acknowledged") == 1;
  })) << rl.body;
  // C enables a tool: its own list changes, and B's listeners hear of it (A's copy of the
  // session, which holds no GET stream, writes nothing: the notice arrives once).
  auto r = call_on(port(2), sid, "9", "unlock_admin", "{}");
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(text_of(r), "admin.stats is now enabled") << r.body;
  ASSERT_TRUE(g.wait_for("notifications/tools/list_changed", 1)) << g.body();
  ASSERT_TRUE(l.read_until(rl, [](const std::string& b) {
    return count_of(b, "notifications/tools/list_changed") == 1;
  })) << rl.body;
  EXPECT_FALSE(g.wait_for("notifications/tools/list_changed", 2, 500ms)) << g.body();
  EXPECT_EQ(count_of(rl.body, "notifications/tools/list_changed"), 1U) << rl.body;
}

TEST_F(Cluster, ANodeStartingAnnouncesNoChangeToTheOthers) {
  start(1);
  const auto sid = open_on(port(0));
  get_stream g(port(0), sid);
  ASSERT_TRUE(g.open()) << g.body();
  // B registers the same tools as A while it starts: no list of A's changed, so nothing is
  // announced. Then B, serving, enables a tool: that change reaches A's stream, and only it.
  // (Past B's debounce, 20 ms: a notice of B's start would be out, not merged into the change.)
  start(1);
  std::this_thread::sleep_for(300ms);
  auto r = call_on(port(1), sid, "9", "unlock_admin", "{}");
  ASSERT_EQ(r.status, 200U) << r.body;
  ASSERT_TRUE(g.wait_for("notifications/tools/list_changed", 1)) << g.body();
  EXPECT_FALSE(g.wait_for("notifications/tools/list_changed", 2, 500ms)) << g.body();
}

TEST_F(Cluster, AToolAddedOnceTheHttpServerStartedReachesTheOthersBeforeAnySessionOpened) {
  start(1);
  const auto sid = open_on(port(0));
  get_stream g(port(0), sid);
  ASSERT_TRUE(g.open()) << g.body();
  // A node in this process, of the same service as the demo_server nodes (their --redis prefix).
  auto shared = mcp::make_redis_shared_state({.url = redis_.url(), .key_prefix = "mcp-demo:"});
  ASSERT_TRUE(shared) << shared.error().message;
  mcp::server b({.shared = *shared});
  const auto empty = [](mcp::tool_context&, const mcp::json::object&) {
    return mcp::call_tool_result{};
  };
  // Registered while B starts: no change for the others. B's HTTP server starts; past B's
  // debounce (20 ms) a notice of that registration would be out, not merged into the next.
  b.add_tool({.name = "at_start", .description = "registered at start-up"}, empty);
  mcp::http_server http(b, {.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(http.start());
  std::this_thread::sleep_for(300ms);
  // B serves, with no session yet: a tool added now is a change that reaches A's stream, and
  // only it (a stream's read that times out ends it: the check for none comes last).
  b.add_tool({.name = "late", .description = "added while serving"}, empty);
  ASSERT_TRUE(g.wait_for("notifications/tools/list_changed", 1)) << g.body();
  EXPECT_FALSE(g.wait_for("notifications/tools/list_changed", 2, 500ms)) << g.body();
  EXPECT_EQ(http.session_count(), 0U);
  http.stop();
}

}  // namespace
