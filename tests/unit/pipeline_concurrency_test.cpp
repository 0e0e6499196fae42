// mcp::concurrency_limit (mcp/pipeline.hpp) at the wire, over in-memory sessions: task calls
// beyond the limit are accepted and queued, not refused; callers get fair shares; the bounds
// on queued tasks refuse with a clear error.
#include <mcp/pipeline.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::json::value;
using mcp::test::wire;
using namespace std::chrono_literals;

/// A tool that counts the calls running in it (and the most at once), and runs until `open`
/// (or for `ms` milliseconds when its arguments say so).
struct counted_tool {
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  std::atomic<int> started{0};
  std::atomic<bool> open{false};

  void add_to(mcp::server& s) {
    s.add_tool({.name = "slow",
                .description = "Counts itself",
                .task_support_mode = mcp::task_support::optional},
               [this](mcp::tool_context& ctx, const object& args) {
                 ++started;
                 const int now = ++running;
                 int seen = peak.load();
                 while (now > seen && !peak.compare_exchange_weak(seen, now)) {
                 }
                 const auto* ms = args.if_contains("ms");
                 const auto until = std::chrono::steady_clock::now() +
                                    (ms ? std::chrono::milliseconds(ms->as_int64()) : 20s);
                 while (!ctx.cancelled() && std::chrono::steady_clock::now() < until &&
                        (ms || !open.load())) {
                   std::this_thread::sleep_for(1ms);
                 }
                 --running;
                 mcp::call_tool_result r;
                 r.content.push_back(mcp::text_content("done"));
                 return r;
               });
    s.add_tool({.name = "echo", .description = "Echoes", .run_inline = true},
               [](mcp::tool_context&, const object&) {
                 mcp::call_tool_result r;
                 r.content.push_back(mcp::text_content("echo"));
                 return r;
               });
  }
  /// Waits until `n` calls run (or 5 s).
  bool wait_running(int n) const {
    for (int i = 0; i < 5000 && running.load() < n; ++i) std::this_thread::sleep_for(1ms);
    return running.load() >= n;
  }
};

/// Reads `w` until the response to `id`, keeping the others in `seen` (by id).
value response_to(wire& w, std::int64_t id, std::map<std::int64_t, value>& seen) {
  if (auto it = seen.find(id); it != seen.end()) return it->second;
  for (;;) {
    auto m = w.next_response(10s);
    if (!m) return value("<timeout>");
    const auto got = m->at("id").as_int64();
    if (got == id) return *m;
    seen.emplace(got, std::move(*m));
  }
}

void send_call(wire& w, std::int64_t id, std::string_view tool, bool task, object args = {}) {
  object params{{"name", tool}, {"arguments", std::move(args)}};
  if (task) params["task"] = object{};
  w.send(object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
}

std::string text_of(const value& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

bool is_tool_error(const value& response) {
  const auto* e = response.at("result").as_object().if_contains("isError");
  return e != nullptr && e->as_bool();
}

/// What every test sets up: the counting tool, a server (its middleware installed by the test
/// before open()), and initialized sessions. Members go callers first, the tool last: the
/// server's handlers use the tool until the server is gone.
struct limited_server {
  counted_tool tool;
  mcp::server server;
  std::vector<std::unique_ptr<wire>> callers;

  explicit limited_server(mcp::server_options options = {}) : server(std::move(options)) {}
  /// Registers the tools and opens `n` initialized sessions (caller(0) ... caller(n - 1)).
  void open(int n = 1) {
    tool.add_to(server);
    for (int i = 0; i < n; ++i) {
      callers.push_back(std::make_unique<wire>(server));
      callers.back()->initialize();
    }
  }
  wire& caller(std::size_t i = 0) { return *callers.at(i); }
};

/// Reads the answers to task calls 1..n and returns their task ids ("" for an answer that is
/// not a task, reported as a failure).
std::vector<std::string> task_ids(wire& w, int n, std::map<std::int64_t, value>& seen) {
  std::vector<std::string> ids;
  for (int i = 1; i <= n; ++i) {
    auto r = response_to(w, i, seen);
    const auto* result = r.as_object().if_contains("result");
    EXPECT_TRUE(result != nullptr && result->as_object().contains("task")) << r;
    ids.emplace_back(result != nullptr && result->as_object().contains("task")
                         ? std::string(result->at("task").at("taskId").as_string())
                         : std::string());
  }
  return ids;
}

/// Asks tasks/result for every one of `ids` (request ids from `first` on) and returns the
/// answers in the same order.
std::vector<value> results_of(wire& w, const std::vector<std::string>& ids, std::int64_t first,
                              std::map<std::int64_t, value>& seen) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    w.send(object{{"jsonrpc", "2.0"},
                  {"id", first + static_cast<std::int64_t>(i)},
                  {"method", "tasks/result"},
                  {"params", object{{"taskId", ids[i]}}}});
  }
  std::vector<value> answers;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    answers.push_back(response_to(w, first + static_cast<std::int64_t>(i), seen));
  }
  return answers;
}

TEST(concurrency_limit, task_calls_beyond_the_limit_are_all_accepted_and_all_finish) {
  limited_server s;
  s.server.use(mcp::concurrency_limit(8));  // one caller alone: a share of 8 / 2 = 4
  s.open();
  auto& w = s.caller();
  constexpr int n = 200;
  for (int i = 1; i <= n; ++i) send_call(w, i, "slow", true);
  std::map<std::int64_t, value> seen;
  const auto ids = task_ids(w, n, seen);
  ASSERT_FALSE(ids.back().empty());
  // The last one waits its turn, and says so.
  ASSERT_TRUE(s.tool.wait_running(4));
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 100000},
                {"method", "tasks/get"},
                {"params", object{{"taskId", ids.back()}}}});
  auto got = response_to(w, 100000, seen);
  EXPECT_EQ(got.at("result").at("status"), "working");
  EXPECT_NE(std::string(got.at("result").at("statusMessage").as_string()).find("Queued"),
            std::string::npos);
  s.tool.open = true;
  for (const auto& r : results_of(w, ids, 200000, seen)) {
    ASSERT_TRUE(r.as_object().contains("result")) << r;
    EXPECT_EQ(text_of(r), "done");
  }
  EXPECT_EQ(s.tool.started.load(), n);
  EXPECT_LE(s.tool.peak.load(), 4) << "a caller alone runs at most half the slots";
  EXPECT_GE(s.tool.peak.load(), 2);
}

TEST(concurrency_limit, a_caller_flooding_plain_calls_leaves_the_others_their_share) {
  limited_server s;
  s.server.use(mcp::concurrency_limit(64));
  s.open(2);
  auto& a = s.caller(0);
  auto& b = s.caller(1);
  for (int i = 1; i <= 100; ++i) send_call(a, i, "slow", false);
  ASSERT_TRUE(s.tool.wait_running(32));
  const auto start = std::chrono::steady_clock::now();
  auto echo = b.call("tools/call", object{{"name", "echo"}}, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_FALSE(is_tool_error(echo)) << echo;
  EXPECT_EQ(text_of(echo), "echo");
  // A's calls beyond its share were refused at once, saying why.
  std::map<std::int64_t, value> seen;
  int refused = 0;
  for (int i = 33; i <= 100; ++i) {
    auto r = response_to(a, i, seen);
    if (is_tool_error(r)) {
      ++refused;
      EXPECT_NE(text_of(r).find("from this caller (its share is 32 of the limit 64)"),
                std::string::npos)
          << r;
    }
  }
  EXPECT_EQ(refused, 68);
  EXPECT_EQ(s.tool.running.load(), 32);
  s.tool.open = true;
  for (int i = 1; i <= 32; ++i) EXPECT_EQ(text_of(response_to(a, i, seen)), "done");
  EXPECT_LE(s.tool.peak.load(), 32);
}

TEST(concurrency_limit, a_caller_flooding_tasks_does_not_stop_another_callers_calls) {
  limited_server s;
  s.server.use(mcp::concurrency_limit(64));
  s.open(2);
  auto& a = s.caller(0);
  auto& b = s.caller(1);
  constexpr int n = 1000;
  for (int i = 1; i <= n; ++i) send_call(a, i, "slow", true);
  std::map<std::int64_t, value> seen;
  const auto ids = task_ids(a, n, seen);
  ASSERT_TRUE(s.tool.wait_running(32));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(s.tool.running.load(), 32) << "the rest of A's tasks wait";
  const auto start = std::chrono::steady_clock::now();
  auto echo = b.call("tools/call", object{{"name", "echo"}}, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_FALSE(is_tool_error(echo)) << echo;
  // B's own tasks run at once, beside A's, within B's share.
  send_call(b, 2, "slow", true, {{"ms", 1}});
  auto created = b.next_response();
  ASSERT_TRUE(created && created->as_object().contains("result"));
  const std::string bid(created->at("result").at("task").at("taskId").as_string());
  auto done = b.call("tasks/result", object{{"taskId", bid}}, 3);
  EXPECT_EQ(text_of(done), "done") << done;
  s.tool.open = true;
  for (const auto& r : results_of(a, ids, 100000, seen)) {
    ASSERT_TRUE(r.as_object().contains("result")) << r;
  }
  EXPECT_EQ(s.tool.started.load(), n + 1);
  EXPECT_LE(s.tool.peak.load(), 64);
}

TEST(concurrency_limit, a_caller_over_its_queued_task_bound_gets_a_clear_error) {
  limited_server s({.max_tasks_per_owner = 10});
  s.server.use(mcp::concurrency_limit(2));
  s.open();
  auto& w = s.caller();
  for (int i = 1; i <= 10; ++i) {
    ASSERT_TRUE(w.call("tools/call", object{{"name", "slow"}, {"task", object{}}}, i)
                    .as_object()
                    .contains("result"));
  }
  auto refused = w.call("tools/call", object{{"name", "slow"}, {"task", object{}}}, 11);
  EXPECT_EQ(refused.at("error").at("code"), -32600);
  EXPECT_NE(std::string(refused.at("error").at("message").as_string())
                .find("Too many unfinished tasks (at most 10"),
            std::string::npos)
      << refused;
  s.tool.open = true;
}

TEST(concurrency_limit, the_queue_is_bounded_and_a_cancelled_queued_task_never_runs) {
  limited_server s;
  s.server.use(mcp::concurrency_limit({.max = 1, .max_queued = 2}));
  s.open();
  auto& w = s.caller();
  for (int i = 1; i <= 3; ++i) send_call(w, i, "slow", true);
  std::map<std::int64_t, value> seen;
  const auto ids = task_ids(w, 3, seen);
  auto over = w.call("tools/call", object{{"name", "slow"}, {"task", object{}}}, 4);
  EXPECT_TRUE(is_tool_error(over));
  EXPECT_NE(text_of(over).find("Too many queued tool calls (at most 2)"), std::string::npos);
  // A plain call at the limit is refused at once, as before.
  auto plain = w.call("tools/call", object{{"name", "slow"}}, 5);
  EXPECT_TRUE(is_tool_error(plain));
  EXPECT_NE(text_of(plain).find("Too many concurrent tool calls (limit 1)"), std::string::npos);
  auto cancelled = w.call("tasks/cancel", object{{"taskId", ids[2]}}, 6);
  EXPECT_EQ(cancelled.at("result").at("status"), "cancelled");
  ASSERT_TRUE(s.tool.wait_running(1));
  s.tool.open = true;
  EXPECT_EQ(text_of(results_of(w, {ids[1]}, 7, seen).at(0)), "done");
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(s.tool.started.load(), 2) << "the cancelled task never ran";
  EXPECT_EQ(s.tool.peak.load(), 1);
  // Its slot and queue place are free again.
  EXPECT_FALSE(is_tool_error(w.call("tools/call", object{{"name", "echo"}}, 8)));
}

TEST(concurrency_limit, a_queued_tasks_deadline_counts_from_when_it_runs) {
  limited_server s;
  s.server.use(mcp::deadline(600ms));
  s.server.use(mcp::concurrency_limit({.max = 1}));
  s.open();
  auto& w = s.caller();
  for (int i = 1; i <= 5; ++i) send_call(w, i, "slow", true, {{"ms", 150}});
  std::map<std::int64_t, value> seen;
  const auto ids = task_ids(w, 5, seen);
  // The fifth waits about 600 ms, then runs 150 ms: within its deadline of 600 ms (counted
  // from when it was queued, it would be past it). Each has 450 ms to spare for a slow start.
  for (const auto& r : results_of(w, ids, 10, seen)) EXPECT_EQ(text_of(r), "done") << r;
}

TEST(concurrency_limit, per_caller_set_to_the_limit_makes_one_shared_pool) {
  limited_server s;
  s.server.use(mcp::concurrency_limit({.max = 4, .per_caller = 4}));
  s.open();
  auto& w = s.caller();
  for (int i = 1; i <= 4; ++i) send_call(w, i, "slow", false);
  ASSERT_TRUE(s.tool.wait_running(4));
  auto r = w.call("tools/call", object{{"name", "echo"}}, 5);
  EXPECT_TRUE(is_tool_error(r));
  EXPECT_NE(text_of(r).find("(limit 4)"), std::string::npos);
  s.tool.open = true;
  std::map<std::int64_t, value> seen;
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(text_of(response_to(w, i, seen)), "done");
}

}  // namespace
