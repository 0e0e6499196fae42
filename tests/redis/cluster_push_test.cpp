// Task changes pushed between the nodes of a cluster (redis-server, demo_server processes with
// --redis; cluster_util.hpp): a cancellation whose stop is slow holds up no other task's end
// (the push's reads and stops run off the store's subscriber thread); a 2026-07-28 listen on
// either node hears each change of a task once, and the task's end made by a node whose clock
// is behind (libfaketime) is still told.
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>

#include "redis/cluster_util.hpp"
#include <unistd.h>

namespace {

using namespace mcp_test;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

/// A 2025-11-25 task of `tool` with `args` started on `port` in session `sid`: its id as JSON
/// text, or empty (after a failure is recorded).
std::string start_task(std::uint16_t port, const std::string& sid, const std::string& id,
                       const std::string& tool, const std::string& args) {
  auto r =
      request(port, "POST",
              R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"tools/call","params":{"name":")" +
                  tool + R"(","arguments":)" + args + R"(,"task":{}}})",
              post_headers(sid));
  EXPECT_EQ(r.status, 200U) << r.body;
  if (r.status != 200U) return {};
  const auto created = result_of(answer_of(r));
  EXPECT_TRUE(created.contains("task")) << r.body;
  return created.contains("task") ? mcp::json::serialize(created.at("task").at("taskId"))
                                  : std::string();
}

TEST_F(Cluster, ASlowStopOfACancelledTaskHoldsUpNoOtherTasksEnd) {
  start(2);
  const auto sid = open_on(port(0));
  // A runs a task whose stop takes 3 s; B runs one that ends about 1 s from now, whose
  // tasks/result waits on A.
  const auto stubborn = start_task(port(0), sid, "3", "slow_stop_task",
                                   R"({"steps":4000,"step_ms":5,"stop_ms":3000})");
  const auto quick = start_task(port(1), sid, "4", "slow_task", R"({"steps":1,"step_ms":1000})");
  ASSERT_FALSE(stubborn.empty() || quick.empty());
  raw_client waiting(port(0));
  waiting.send_raw(make_request(
      "POST", port(0),
      R"({"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":)" + quick + "}}",
      post_headers(sid)));
  std::this_thread::sleep_for(300ms);  // the waiter is registered
  // Cancelled on B: A hears it from Redis and stops its task, which takes 3 s.
  auto c = request(
      port(1), "POST",
      R"({"jsonrpc":"2.0","id":6,"method":"tasks/cancel","params":{"taskId":)" + stubborn + "}}",
      post_headers(sid));
  ASSERT_EQ(c.status, 200U) << c.body;
  const auto cancelled_at = steady::now();
  response got;
  ASSERT_TRUE(waiting.read_until(
      got, [](const std::string& b) { return b.find("done 1") != b.npos; }, 10s))
      << got.body;
  // The quick task ends about 0.7 s after the cancellation; its end is not queued behind the
  // stop (before, both were handled on the subscriber's thread: about 3 s).
  const auto after = steady::now() - cancelled_at;
  EXPECT_LT(after, 2s) << std::chrono::duration_cast<std::chrono::milliseconds>(after).count()
                       << " ms";
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

/// libfaketime, which moves a process's clock (FAKETIME); empty when it is not installed.
std::string faketime_library() {
  for (const char* p : {"/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
                        "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
                        "/usr/lib/faketime/libfaketimeMT.so.1"}) {
    if (::access(p, R_OK) == 0) return p;
  }
  return {};
}

/// The `_meta` of a 2026-07-28 request declaring elicitation and the tasks extension.
std::string asking_meta() {
  return modern_meta(R"({"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}})");
}

/// A 2026-07-28 request of `method` about task `task` with `params` members on `port`; its
/// result (empty when there is none).
mcp::json::object modern_on(std::uint16_t port, const std::string& id, const std::string& method,
                            const std::string& task, const std::string& params) {
  auto r = request(port, "POST", modern_body(id, method, params, asking_meta()),
                   modern_headers(method, task));
  EXPECT_EQ(r.status, 200U) << method << ": " << r.body;
  return r.status == 200U ? result_of(answer_of(r)) : mcp::json::object{};
}

TEST_F(Cluster, AListenHearsEachChangeOnceAndAnEndMadeWhereTheClockIsBehind) {
  const auto faketime = faketime_library();
  if (faketime.empty()) GTEST_SKIP() << "libfaketime is not installed (Debian: libfaketime)";
  if (sanitized) {  // the sanitizer's runtime must come first; a preloaded library cannot
    GTEST_SKIP() << "libfaketime cannot be preloaded into a sanitizer-built demo_server";
  }
  start(1);
  // B's clock is 30 s behind A's: what B stores carries earlier times than what A stored.
  start_through({"/usr/bin/env", "LD_PRELOAD=" + faketime, "FAKETIME=-30s",
                 "FAKETIME_DONT_FAKE_MONOTONIC=1"});
  auto r = request(port(0), "POST",
                   modern_call("1", "slow_stop_task",
                               R"({"ask_first":true,"steps":400,"step_ms":50})", {}, asking_meta()),
                   modern_headers("tools/call", "slow_stop_task"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto created = result_of(answer_of(r));
  ASSERT_EQ(created.at("resultType"), "task") << r.body;
  const std::string id(created.at("taskId").as_string());
  const std::string task_id = R"("taskId":")" + id + "\"";
  // It asks first (input_required), on A.
  std::string key;
  for (int i = 0; i < 250 && key.empty(); ++i) {
    const auto t = modern_on(port(0), "2", "tasks/get", id, task_id);
    const auto* asks = t.if_contains("inputRequests");
    if (asks != nullptr && asks->is_object() && !asks->as_object().empty()) {
      key = asks->as_object().begin()->key();
    } else {
      std::this_thread::sleep_for(20ms);
    }
  }
  ASSERT_FALSE(key.empty()) << "the task asked nothing";
  task_listen on_a(port(0), id);
  task_listen on_b(port(1), id);
  ASSERT_TRUE(on_a.open()) << on_a.body();
  ASSERT_TRUE(on_b.open()) << on_b.body();
  // Answered on A: working again, stored with A's clock; told once on each node (A hears it
  // from itself and from Redis).
  modern_on(port(0), "3", "tasks/update", id,
            task_id + R"(,"inputResponses":{")" + key +
                R"(":{"action":"accept","content":{"go_on":true}}})");
  EXPECT_TRUE(on_a.wait_for("working", 1, 10s)) << on_a.body();
  EXPECT_TRUE(on_b.wait_for("working", 1, 10s)) << on_b.body();
  // Cancelled on B: the end carries B's clock, earlier than the change told before it, and is
  // still told, once, on each node.
  modern_on(port(1), "4", "tasks/cancel", id, task_id);
  EXPECT_TRUE(on_a.wait_for("cancelled", 1, 10s)) << on_a.body();
  EXPECT_TRUE(on_b.wait_for("cancelled", 1, 10s)) << on_b.body();
  EXPECT_FALSE(on_a.wait_for("cancelled", 2, 500ms)) << on_a.body();
  EXPECT_FALSE(on_b.wait_for("cancelled", 2, 100ms)) << on_b.body();
  EXPECT_EQ(on_a.told("working"), 1U) << on_a.body();
  EXPECT_EQ(on_b.told("working"), 1U) << on_b.body();
  const auto working = on_b.told_of("working");
  const auto ended = on_b.told_of("cancelled");
  ASSERT_FALSE(working.empty() || ended.empty());
  // The test's premise: the end's time is before the time of the change told before it.
  const auto time_of = [](const mcp::json::object& m) {
    return std::string(m.at("params").at("lastUpdatedAt").as_string());
  };
  EXPECT_LT(time_of(ended.front()), time_of(working.front())) << on_b.body();
}

}  // namespace
