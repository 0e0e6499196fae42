// Tasks between the nodes of a cluster (redis-server, demo_server processes with --redis;
// cluster_util.hpp): a 2025-11-25 task's elicitation asked on a node that holds no GET stream of
// the session reaches the client on the stream another node holds (the session opened on the
// asking node, and on a third one); a 2026-07-28 listen naming a task hears its changes on
// every node, once; a task finished on one node answers a tasks/result waiting on a node whose
// handler threads are all busy, without waiting for one; once the GET stream's client is gone,
// a task's question goes on its tasks/result again.
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>

#include "redis/cluster_util.hpp"

namespace {

using namespace mcp_test;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

/// Starts elicit_task as a task on `port` in session `sid`; `task` gets its id (JSON text).
/// What went wrong, or empty.
std::string start_elicit_task(std::uint16_t port, const std::string& sid, std::string& task) {
  auto r = request(port, "POST",
                   R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":)"
                   R"("elicit_task","arguments":{"message":"Say?"},"task":{}}})",
                   post_headers(sid));
  if (r.status != 200U) return "the call got " + std::to_string(r.status) + ": " + r.body;
  const auto created = result_of(answer_of(r));
  if (!created.contains("task")) return "no task: " + r.body;
  task = mcp::json::serialize(created.at("task").at("taskId"));
  return {};
}

/// Opens a GET stream of session `sid` on `stream_port`, starts elicit_task on `call_port`,
/// reads its question on the stream, answers it through `answer_port` and reads the task's
/// result there; the result's text, or what went wrong. The stream's client is gone when it
/// returns.
std::string task_asks_through(std::uint16_t stream_port, std::uint16_t call_port,
                              std::uint16_t answer_port, const std::string& sid,
                              const std::string& said) {
  get_stream g(stream_port, sid);
  if (!g.open()) return "the GET stream did not open: " + g.body();
  std::string task;
  if (auto failed = start_elicit_task(call_port, sid, task); !failed.empty()) return failed;
  const auto before = count_of(g.body(), "elicitation/create");
  // The asking node holds no GET stream: the question travels to the node that does (before,
  // it waited for a tasks/result to carry it).
  if (!g.wait_for("elicitation/create", before + 1, 5s)) return "no question came: " + g.body();
  auto asked = messages_in(g.body());
  std::erase_if(asked, [](const mcp::json::object& m) {
    const auto* x = m.if_contains("method");
    return x == nullptr || *x != "elicitation/create";
  });
  const auto content = R"({"answer":")" + said + R"("})";
  if (auto failed = accept_elicitation(answer_port, sid, asked.back(), content); !failed.empty()) {
    return failed;
  }
  auto got = request(
      answer_port, "POST",
      R"({"jsonrpc":"2.0","id":6,"method":"tasks/result","params":{"taskId":)" + task + "}}",
      post_headers(sid));
  if (got.status != 200U) return "tasks/result got " + std::to_string(got.status);
  return text_of(got);
}

TEST_F(Cluster, ATaskAsksTheClientThroughTheGetStreamAnotherNodeHolds) {
  start(3);
  // The session opened on A, its GET stream on B: B tells A it holds it.
  const auto sid = open_on(port(0), R"({"elicitation":{}})");
  EXPECT_EQ(task_asks_through(port(1), port(0), port(2), sid, "forty-two"), "answer: forty-two");
  // Opened on C, streamed on B, the task started on A, which has no copy yet: A asks who holds
  // the stream when it opens its copy, and B answers.
  const auto other = open_on(port(2), R"({"elicitation":{}})");
  EXPECT_EQ(task_asks_through(port(1), port(0), port(0), other, "seven"), "answer: seven");
}

/// Starts elicit_task on `port` (session `sid`, no GET stream held anywhere) and reads its
/// question on its tasks/result there, answers it and reads the result; what went wrong, or
/// the result's text.
std::string task_asks_through_result(std::uint16_t port, const std::string& sid,
                                     const std::string& said) {
  std::string task;
  if (auto failed = start_elicit_task(port, sid, task); !failed.empty()) return failed;
  const auto text = "answer: " + said;
  response got;
  if (auto failed = answer_on_stream(
          port, port, sid,
          R"({"jsonrpc":"2.0","id":8,"method":"tasks/result","params":{"taskId":)" + task + "}}",
          R"({"answer":")" + said + R"("})", text, got);
      !failed.empty()) {
    return failed;
  }
  return text;
}

TEST_F(Cluster, ATaskAsksThroughTasksResultOnceTheGetStreamsClientIsGone) {
  start(2);
  const auto sid = open_on(port(0), R"({"elicitation":{}})");
  // Asked on B's stream, whose client then goes away.
  EXPECT_EQ(task_asks_through(port(1), port(0), port(0), sid, "one"), "answer: one");
  // Nobody listens to B's stream for 5 s (five sse_retry of 1 s): B says it holds it no more,
  // and A's task asks through tasks/result again (before, A sent the question to B's stream,
  // where no client would read it).
  std::this_thread::sleep_for(6500ms);
  EXPECT_EQ(task_asks_through_result(port(0), sid, "two"), "answer: two");
}

TEST_F(Cluster, AListenOnAnyNodeHearsOfATaskRunningOnAnother) {
  start(2);
  auto r = request(port(0), "POST",
                   modern_call("1", "slow_task", R"({"steps":4,"step_ms":250})", {}, tasks_meta()),
                   modern_headers("tools/call", "slow_task"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_EQ(created.at("resultType"), "task") << r.body;
  const std::string id(created.at("taskId").as_string());
  // A runs it; B only hears of it through the store's pushes.
  task_listen on_b(port(1), id);
  task_listen on_a(port(0), id);
  ASSERT_TRUE(on_b.open()) << on_b.body();
  ASSERT_TRUE(on_a.open()) << on_a.body();
  EXPECT_TRUE(on_b.wait_for("completed", 1, 10s)) << on_b.body();
  EXPECT_TRUE(on_a.wait_for("completed", 1, 10s)) << on_a.body();
  // Once each: A heard it from itself and from the store, and tells it once.
  EXPECT_FALSE(on_b.wait_for("completed", 2, 500ms)) << on_b.body();
  EXPECT_FALSE(on_a.wait_for("completed", 2, 100ms)) << on_a.body();
}

TEST_F(Cluster, ATaskFinishedElsewhereAnswersATasksResultOnABusyNode) {
  start(2, {"--handler-threads", "2"});
  const auto sid = open_on(port(1));
  // B runs the task (about 1.5 s); A waits for its result.
  auto r = request(port(1), "POST",
                   R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow_task",)"
                   R"("arguments":{"steps":3,"step_ms":500},"task":{}}})",
                   post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_TRUE(created.contains("task")) << r.body;
  const auto task = mcp::json::serialize(created.at("task").at("taskId"));
  raw_client waiting(port(0));
  waiting.send_raw(make_request(
      "POST", port(0),
      R"({"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":)" + task + "}}",
      post_headers(sid)));
  std::this_thread::sleep_for(500ms);  // the waiter is registered (it needs a handler thread)
  // Both of A's handler threads are then busy for 6 s.
  const auto busy_from = steady::now();
  std::vector<std::unique_ptr<raw_client>> slow;
  for (int i = 0; i < 2; ++i) {
    slow.push_back(std::make_unique<raw_client>(port(0)));
    slow.back()->send_raw(make_request(
        "POST", port(0),
        call_body(std::to_string(10 + i), "slow_task", R"({"steps":1,"step_ms":6000})"),
        post_headers(sid)));
  }
  response got;
  ASSERT_TRUE(waiting.read_until(
      got, [](const std::string& b) { return b.find("done 3") != b.npos; }, 10s))
      << got.body;
  const auto after = steady::now() - busy_from;
  // The task ends about 1 s after the threads got busy; the answer does not wait the 6 s
  // until one is free.
  EXPECT_LT(after, 4s) << std::chrono::duration_cast<std::chrono::milliseconds>(after).count()
                       << " ms";
  response slow_answer;
  EXPECT_TRUE(slow.front()->read_until(
      slow_answer, [](const std::string& b) { return b.find("done 1") != b.npos; }, 15s))
      << slow_answer.body;
}

}  // namespace
