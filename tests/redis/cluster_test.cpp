// Many demo_server processes, one service: a real redis-server and demo_server processes started
// with --redis on 127.0.0.1 (ephemeral ports, a temp dir), and a round-robin HAProxy in front.
// Each request names the node it goes to, so "opened on A, served by B" is what happens. The
// test's main skips (exit 77) with the reason when redis-server or haproxy is missing.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "redis/cluster_util.hpp"

namespace {

using namespace mcp_test;
using namespace std::chrono_literals;

TEST_F(Cluster, ASessionOpenedOnAIsServedByB) {
  start(3);
  const auto sid = open_on(port(0));
  ASSERT_EQ(sid.size(), 32U);
  // B and C never saw the session: they serve it from its shared record.
  auto r = call_on(port(1), sid, "2", "echo", R"({"text":"on B"})");
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(r.header("mcp-session-id"), sid);
  EXPECT_NE(r.body.find("on B"), std::string::npos) << r.body;
  r = request(port(2), "POST", R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})",
              post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_NE(r.body.find("\"echo\""), std::string::npos);
  // logging/setLevel on B is what C (a fresh copy) starts from; a level outside the list fails.
  r = request(port(1), "POST",
              R"({"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"debug"}})",
              post_headers(sid));
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_NE(r.body.find("\"result\":{}"), std::string::npos) << r.body;
  // An id no node opened is unknown everywhere.
  r = call_on(port(2), std::string(32, 'a'), "5", "echo", R"({"text":"x"})");
  EXPECT_EQ(r.status, 404U) << r.body;
  // Ended on C: every node answers 404, also A and B which hold a copy.
  r = request(port(2), "DELETE", "", post_headers(sid));
  EXPECT_EQ(r.status, 200U) << r.body;
  for (std::size_t i = 0; i < 3; ++i) {
    r = call_on(port(i), sid, "6", "echo", R"({"text":"gone"})");
    EXPECT_EQ(r.status, 404U) << "node " << i << ": " << r.body;
  }
}

TEST_F(Cluster, AStreamResumedOnAnotherNodeMissesNoEvent) {
  start(2);
  const auto sid = open_on(port(0));
  // slow_count reports progress: an SSE stream of 5 progress events and the result, on A.
  auto r = call_on(port(0), sid, "7", "slow_count", R"({"steps":5,"step_ms":5})", true);
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto all = r.events();
  ASSERT_GE(all.size(), 6U) << r.body;
  // Resumed on B after the first event, the stream replays everything after it, in order.
  // A sends its events to Redis from a writer thread of its own: B sees each one once A has
  // sent it (a few milliseconds after A wrote it to its client), so B is asked again until it
  // replays them all, for up to 5 s; every replay B gives is A's events in order, none missing
  // between them and none twice.
  const std::size_t from = all.front().data.empty() ? 1 : 0;  // a priming event has no data
  std::vector<std::string> want;
  for (std::size_t i = from + 1; i < all.size(); ++i) {
    if (!all[i].data.empty()) want.push_back(all[i].id + " " + all[i].data);
  }
  response again;
  std::vector<std::string> got;
  for (int attempt = 0; attempt < 250; ++attempt) {
    again = resume(port(1), sid, all[from].id);
    got.clear();
    for (const auto& e : again.events()) {
      if (!e.data.empty()) got.push_back(e.id + " " + e.data);
    }
    if (again.status == 200U) {
      // What B has so far: the first of A's events after the resumption point, in order.
      ASSERT_LE(got.size(), want.size()) << again.body;
      ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin())) << again.body;
      if (got.size() == want.size()) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(again.status, 200U) << again.body;
  EXPECT_EQ(got, want);
}

TEST_F(Cluster, ATaskCreatedOnAIsFetchedAndItsResultReadOnB) {
  start(2);
  const auto sid = open_on(port(0));
  auto r = request(port(0), "POST",
                   R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"slow_task",)"
                   R"("arguments":{"steps":3,"step_ms":300},"task":{}}})",
                   post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_TRUE(created.contains("task")) << r.body;
  const std::string task(created.at("task").at("taskId").as_string());
  // A node starting meanwhile (C, serving its first session here) leaves the task alone (A
  // runs it): it does not fail the store's unfinished tasks as a lone process restarting would.
  start(1);
  r = request(
      port(2), "POST",
      R"({"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":")" + task + R"("}})",
      post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(result_of(answer_of(r)).at("taskId").as_string(), task) << r.body;
  EXPECT_EQ(result_of(answer_of(r)).at("status").as_string(), "working") << r.body;
  // tasks/result on B waits for A to finish (a wake-up through Redis, not a poll).
  r = request(
      port(1), "POST",
      R"({"jsonrpc":"2.0","id":10,"method":"tasks/result","params":{"taskId":")" + task + R"("}})",
      post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(text_of(r), "done 3") << r.body;
}

TEST_F(Cluster, ANodeStartingLeavesTheTasksOfOtherNodesAlone) {
  start(2);
  const auto sid = open_on(port(0), R"({"elicitation":{}})");
  auto r =
      request(port(0), "POST",
              R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"elicit_task",)"
              R"("arguments":{"message":"Which colour?"},"task":{}}})",
              post_headers(sid));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_TRUE(created.contains("task")) << r.body;
  const std::string task(created.at("task").at("taskId").as_string());
  const auto status_on = [&](std::uint16_t p) {
    auto got = request(
        p, "POST",
        R"({"jsonrpc":"2.0","id":12,"method":"tasks/get","params":{"taskId":")" + task + R"("}})",
        post_headers(sid));
    const auto res = result_of(answer_of(got));
    const auto* st = res.if_contains("status");
    return st != nullptr && st->is_string() ? std::string(st->get_string()) : got.body;
  };
  std::string status;
  for (int i = 0; i < 100 && status != "input_required"; ++i) {
    status = status_on(port(1));
    if (status != "input_required") std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(status, "input_required");
  // C starts and serves the session: the task it finds unfinished in the store is A's to run
  // (a lone process restarting would fail it, as nobody runs it any more).
  start(1);
  EXPECT_EQ(status_on(port(2)), "input_required");
  EXPECT_EQ(status_on(port(0)), "input_required");
}

TEST_F(Cluster, RateLimitsHoldAcrossNodes) {
  // 5 calls a second, bursts of 10: one bucket for the caller, whichever node it reaches.
  start(3, {"--rate-limit", "5"});
  const auto sid = open_on(port(0));
  int served = 0;
  int limited = 0;
  for (int i = 0; i < 30; ++i) {
    auto r = call_on(port(static_cast<std::size_t>(i) % 3), sid, std::to_string(100 + i), "echo",
                     R"({"text":"n"})");
    ASSERT_EQ(r.status, 200U) << r.body;
    if (r.body.find("Rate limit exceeded") != std::string::npos) {
      ++limited;
    } else {
      ++served;
    }
  }
  // 10 from the burst, plus what 5/s refills while the calls run; each node alone would have
  // served all 30 (its own burst of 10 and refill).
  EXPECT_GE(served, 10);
  EXPECT_LE(served, 16) << "limited " << limited;
  EXPECT_EQ(served + limited, 30);
}

TEST_F(Cluster, AnInputRoundStartedOnAIsFinishedOnB) {
  start(2);
  const std::string caps = R"({"elicitation":{}})";
  auto r = request(port(0), "POST", modern_call("1", "ask_name", "{}", {}, modern_meta(caps)),
                   modern_headers("tools/call", "ask_name"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto first = result_of(answer_of(r));
  ASSERT_EQ(first.at("resultType"), "input_required") << r.body;
  const auto* state = first.if_contains("requestState");
  ASSERT_TRUE(state != nullptr && state->is_string()) << r.body;
  const std::string extra =
      R"("inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":)" +
      mcp::to_json_string(*state);
  // B never saw the round: the state is sealed with the key the service shares.
  r = request(port(1), "POST", modern_call("2", "ask_name", "{}", extra, modern_meta(caps)),
              modern_headers("tools/call", "ask_name"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto done = result_of(answer_of(r));
  EXPECT_EQ(done.at("resultType"), "complete") << r.body;
  EXPECT_EQ(first_text(done), "Hello, Ada!") << r.body;
}

TEST_F(Cluster, ThroughARoundRobinProxyEveryRequestOfASessionIsServed) {
  start(3);
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < 3; ++i) ports.push_back(port(i));
  proxy lb(ports);
  ASSERT_TRUE(lb.ready());
  const auto sid = open_on(lb.port());
  ASSERT_EQ(sid.size(), 32U);
  for (int i = 0; i < 9; ++i) {  // three rounds over the three nodes
    auto r = call_on(lb.port(), sid, std::to_string(200 + i), "echo",
                     R"({"text":"hop )" + std::to_string(i) + R"("})");
    ASSERT_EQ(r.status, 200U) << "request " << i << ": " << r.body;
    EXPECT_NE(r.body.find("hop " + std::to_string(i)), std::string::npos) << r.body;
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!GTEST_FLAG_GET(list_tests)) {
    if (!mcp::test::redis_server::binary()) {
      std::cout << "SKIPPED: redis-server is not installed (Debian package redis-server)\n";
      return 77;
    }
    if (mcp_test::proxy::binary().empty()) {
      std::cout << "SKIPPED: haproxy is not installed (Debian package haproxy)\n";
      return 77;
    }
  }
  return RUN_ALL_TESTS();
}
