// examples/long_task over stdio: a task-augmented tools/call answered with a task at once, its
// progress, its result through tasks/result, and tasks/cancel stopping a long one.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "examples/stdio_peer.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::json::object;
using mcp::test::first_text;
using mcp::test::stdio_peer;

object crunch_as_task(int steps, int step_ms, std::string_view progress_token) {
  return object{{"name", "crunch"},
                {"arguments", object{{"steps", steps}, {"step_ms", step_ms}}},
                {"task", object{{"ttl", 60000}}},
                {"_meta", object{{"progressToken", progress_token}}}};
}

TEST(example_long_task, runs_as_a_task_with_progress_then_gives_its_result) {
  stdio_peer p({MCP_EXAMPLE_LONG_TASK});
  const auto tool = p.call("tools/list", {}).at("result").at("tools").at(0);
  EXPECT_EQ(tool.at("execution").at("taskSupport"), "optional") << tool;

  const auto created = p.call("tools/call", crunch_as_task(3, 20, "p1"));
  const auto& task = created.at("result").at("task");
  EXPECT_EQ(task.at("status"), "working") << created;
  const std::string id(task.at("taskId").as_string());

  const auto r = p.call("tasks/result", {{"taskId", id}});  // answered when the task ends
  EXPECT_EQ(first_text(r), "crunched 3 steps") << r;
  EXPECT_EQ(p.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "completed");

  std::vector<double> progress;  // every notification sent before tasks/get's answer is read
  for (const auto& n : p.notifications) {
    if (n.at("method") != "notifications/progress") continue;
    EXPECT_EQ(n.at("params").at("progressToken"), "p1");
    EXPECT_EQ(n.at("params").at("total").to_number<double>(), 3.0);
    progress.push_back(n.at("params").at("progress").to_number<double>());
  }
  EXPECT_EQ(progress, (std::vector<double>{1, 2, 3}));

  // The same tool without `task` is a plain call.
  EXPECT_EQ(first_text(p.call_tool("crunch", {{"steps", 1}, {"step_ms", 1}})), "crunched 1 steps");
}

TEST(example_long_task, tasks_cancel_stops_the_job) {
  stdio_peer p({MCP_EXAMPLE_LONG_TASK});
  // 1000 steps of a second each: it ends only by being cancelled.
  const auto created = p.call("tools/call", crunch_as_task(1000, 1000, "p2"));
  const std::string id(created.at("result").at("task").at("taskId").as_string());
  const int waiting = p.request("tasks/result", {{"taskId", id}});
  EXPECT_EQ(p.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "working");

  EXPECT_EQ(p.call("tasks/cancel", {{"taskId", id}}).at("result").at("status"), "cancelled");
  const auto r = p.wait_for(waiting);
  EXPECT_NE(std::string(r.at("error").at("message").as_string()).find("cancelled"),
            std::string::npos)
      << r;
  EXPECT_EQ(p.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "cancelled");

  // The handler saw its stop token: the server ends at once when its input does, although the
  // job had some 1000 seconds of work left.
  const auto before = std::chrono::steady_clock::now();
  p.proc().close_stdin();
  EXPECT_EQ(p.proc().wait(5s), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 3s);
}

}  // namespace
