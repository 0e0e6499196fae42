// Tasks (MCP 2025-11-25) at the wire: the demo server as a subprocess over stdio, its task
// tools called with `params.task`, and the SQLite task store across a kill -9 and a restart
// (finished tasks kept, a cut-off slow_task run again, other unfinished tasks failed).
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::json::object;
using mcp::json::value;

constexpr std::string_view related_key = "io.modelcontextprotocol/related-task";

/// A client driving the demo server line by line: requests wait for their answer, and what
/// arrives meanwhile (notifications, requests from the server) is kept in order.
class wire_client {
 public:
  /// A demo server with its tasks in memory, unless `extra_args` names a store.
  explicit wire_client(std::vector<std::string> extra_args = {"--task-store", ":memory:"},
                       object capabilities = object{}) {
    std::vector<std::string> argv{MCP_DEMO_SERVER};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    proc_ = std::make_unique<mcp::test::subprocess>(argv);
    auto init = call("initialize", object{{"protocolVersion", "2025-11-25"},
                                          {"capabilities", std::move(capabilities)},
                                          {"clientInfo", object{{"name", "t"}, {"version", "1"}}}});
    caps_ = init.at("result").at("capabilities").as_object();
    send(object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }

  mcp::test::subprocess& proc() { return *proc_; }
  [[nodiscard]] const object& server_capabilities() const { return caps_; }

  void send(const value& m) { ASSERT_TRUE(proc_->write_line(mcp::json::serialize(m))); }

  /// Sends a request and returns its id (answer later with `wait_for`).
  int request(std::string_view method, object params) {
    const int id = next_id_++;
    send(object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }

  /// Reads until the answer to `id`; `on_request` answers requests from the server.
  value wait_for(int id, const std::function<value(const object&)>& on_request = {}) {
    for (;;) {
      auto line = proc_->read_line(20s);
      if (!line) return value("<no answer>");
      auto v = mcp::parse_json(*line);
      if (!v || !v->is_object()) return value("<not JSON: " + *line + ">");
      auto& o = v->as_object();
      order.push_back(o);
      if (o.contains("method") && o.contains("id")) {  // a request from the server
        received_requests.push_back(o);
        if (on_request) {
          send(object{{"jsonrpc", "2.0"}, {"id", o.at("id")}, {"result", on_request(o)}});
        }
        continue;
      }
      if (o.contains("method")) {
        notifications.push_back(o);
        continue;
      }
      if (o.contains("id") && o.at("id") == id) return *v;
    }
  }

  value call(std::string_view method, object params) {
    return wait_for(request(method, std::move(params)));
  }

  /// The status notifications about `task` so far.
  std::vector<std::string> statuses(const std::string& task) const {
    std::vector<std::string> out;
    for (const auto& n : notifications) {
      if (n.at("method") != "notifications/tasks/status") continue;
      if (n.at("params").at("taskId") != task.c_str()) continue;
      out.emplace_back(n.at("params").at("status").as_string());
    }
    return out;
  }

  std::vector<object> order;  ///< every message received, in order
  std::vector<object> notifications;
  std::vector<object> received_requests;

 private:
  std::unique_ptr<mcp::test::subprocess> proc_;
  object caps_;
  int next_id_ = 0;
};

object task_call(std::string_view tool, object args, object task = object{}) {
  return object{{"name", tool}, {"arguments", std::move(args)}, {"task", std::move(task)}};
}

std::string task_id(const value& create) {
  return std::string(create.at("result").at("task").at("taskId").as_string());
}

bool rfc3339(const value& v) {
  if (!v.is_string()) return false;
  const std::string s(v.as_string());
  return s.size() >= 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s.back() == 'Z';
}

TEST(stdio_tasks, a_task_call_is_created_then_its_result_is_the_call_tool_result) {
  wire_client c;
  EXPECT_EQ(value(c.server_capabilities().at("tasks")),
            (object{{"list", object{}},
                    {"cancel", object{}},
                    {"requests", object{{"tools", object{{"call", object{}}}}}}}));
  auto created = c.call("tools/call",
                        task_call("slow_task", {{"steps", 3}, {"step_ms", 30}}, {{"ttl", 600000}}));
  ASSERT_TRUE(created.as_object().contains("result")) << created;
  const auto& task = created.at("result").at("task");
  const auto id = task_id(created);
  EXPECT_EQ(id.size(), 32U);
  EXPECT_EQ(task.at("status"), "working");
  EXPECT_EQ(task.at("ttl"), 600000);
  EXPECT_TRUE(task.at("pollInterval").is_int64());
  EXPECT_TRUE(rfc3339(task.at("createdAt")) && rfc3339(task.at("lastUpdatedAt"))) << task;
  // The CreateTaskResult is the first message about the task.
  EXPECT_TRUE(c.statuses(id).empty());

  auto got = c.call("tasks/get", {{"taskId", id}});
  EXPECT_EQ(got.at("result").at("taskId"), id.c_str());
  auto r = c.call("tasks/result", {{"taskId", id}});
  ASSERT_TRUE(r.as_object().contains("result")) << r;
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "done 3");
  EXPECT_EQ(r.at("result").at("_meta").at(related_key).at("taskId"), id.c_str());
  EXPECT_EQ(c.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "completed");
  // The tasks/result that waited told this session the task ended: no status notification too.
  EXPECT_TRUE(c.statuses(id).empty());
  // Progress from the task carries the related-task _meta.
  for (const auto& n : c.notifications) {
    if (n.at("method") == "notifications/progress") {
      EXPECT_EQ(n.at("params").at("_meta").at(related_key).at("taskId"), id.c_str());
    }
  }
  auto listed = c.call("tasks/list", {});
  ASSERT_EQ(listed.at("result").at("tasks").as_array().size(), 1U);
  EXPECT_EQ(listed.at("result").at("tasks").at(0).at("status"), "completed");
  // A terminal task's result is answered at once, again.
  EXPECT_EQ(c.call("tasks/result", {{"taskId", id}}).at("result").at("content"),
            r.at("result").at("content"));
  // A task its requestor asked about (tasks/get) is announced when it ends with no tasks/result
  // waiting; one nobody asked about is not: the first question tells its status.
  const auto asked =
      task_id(c.call("tools/call", task_call("slow_task", {{"steps", 1}, {"step_ms", 300}})));
  const auto unasked = task_id(c.call("tools/call", task_call("slow_task", {{"steps", 1}})));
  EXPECT_EQ(c.call("tasks/get", {{"taskId", asked}}).at("result").at("status"), "working");
  for (int i = 0; i < 500 && c.statuses(asked).empty(); ++i) {
    std::this_thread::sleep_for(10ms);
    EXPECT_EQ(c.call("ping", {}).at("result"), object{});
  }
  EXPECT_EQ(c.statuses(asked), std::vector<std::string>{"completed"});
  EXPECT_EQ(c.call("tasks/get", {{"taskId", unasked}}).at("result").at("status"), "completed");
  EXPECT_TRUE(c.statuses(unasked).empty());
}

TEST(stdio_tasks, task_support_is_enforced_and_bad_requests_are_invalid_params) {
  wire_client c;
  auto plain_required =
      c.call("tools/call", {{"name", "must_task"}, {"arguments", {{"text", "x"}}}});
  EXPECT_EQ(plain_required.at("error").at("code"), -32601);
  auto task_forbidden = c.call("tools/call", task_call("echo", {{"text", "x"}}));
  EXPECT_EQ(task_forbidden.at("error").at("code"), -32601);
  auto ok = c.call("tools/call", task_call("must_task", {{"text", "only as a task"}}));
  const auto id = task_id(ok);
  EXPECT_EQ(c.call("tasks/result", {{"taskId", id}}).at("result").at("content").at(0).at("text"),
            "only as a task");
  auto bad_task = c.call("tools/call", object{{"name", "slow_task"}, {"task", 5}});
  EXPECT_EQ(bad_task.at("error").at("code"), -32602);
  auto bad_ttl = c.call("tools/call", task_call("slow_task", {}, {{"ttl", "soon"}}));
  EXPECT_EQ(bad_ttl.at("error").at("code"), -32602);
  for (const char* m : {"tasks/get", "tasks/result", "tasks/cancel"}) {
    EXPECT_EQ(c.call(m, {}).at("error").at("code"), -32602) << m;
    EXPECT_EQ(c.call(m, {{"taskId", "0123456789abcdef0123456789abcdef"}}).at("error").at("code"),
              -32602)
        << m;
  }
  EXPECT_EQ(c.call("tasks/list", {{"cursor", "not-a-cursor"}}).at("error").at("code"), -32602);
  // A huge ttl is capped and reported as granted.
  auto capped = c.call("tools/call", task_call("slow_task", {}, {{"ttl", 1e15}}));
  EXPECT_EQ(capped.at("error").at("code"), -32602);  // not an integer
  auto granted = c.call("tools/call", task_call("slow_task", {}, {{"ttl", 999999999999}}));
  EXPECT_EQ(granted.at("result").at("task").at("ttl"), 24 * 3600 * 1000);
}

TEST(stdio_tasks, a_failed_tool_makes_a_failed_task_with_the_same_result) {
  wire_client c;
  const auto id = task_id(c.call("tools/call", task_call("failing_task", {{"reason", "disk"}})));
  EXPECT_FALSE(c.call("tools/call", task_call("failing_task", {})).as_object().contains("error"));
  auto r = c.call("tasks/result", {{"taskId", id}});
  EXPECT_EQ(r.at("result").at("isError"), true);
  auto t = c.call("tasks/get", {{"taskId", id}}).at("result");
  EXPECT_EQ(t.at("status"), "failed");
  EXPECT_NE(std::string(t.at("statusMessage").as_string()).find("disk"), std::string::npos);
}

TEST(stdio_tasks, invalid_arguments_in_a_task_call_make_a_failed_task_not_a_refusal) {
  // Chosen (docs/design-tasks.md): arguments are checked where a plain call checks them, in the
  // pipeline, so the task is created and fails with the same isError result a plain call gets.
  wire_client c;
  const auto id = task_id(c.call("tools/call", task_call("slow_task", {{"steps", "many"}})));
  auto r = c.call("tasks/result", {{"taskId", id}});
  EXPECT_EQ(r.at("result").at("isError"), true);
  EXPECT_NE(std::string(r.at("result").at("content").at(0).at("text").as_string())
                .find("Invalid arguments"),
            std::string::npos);
  EXPECT_EQ(c.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "failed");
}

TEST(stdio_tasks, tasks_result_blocks_while_the_connection_serves_and_cancel_wakes_it) {
  wire_client c;
  const auto id =
      task_id(c.call("tools/call", task_call("slow_task", {{"steps", 400}, {"step_ms", 25}})));
  const int waiting = c.request("tasks/result", {{"taskId", id}});
  // Other requests are answered while tasks/result waits.
  EXPECT_EQ(c.call("ping", {}).at("result"), object{});
  EXPECT_EQ(c.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "working");
  auto cancelled = c.call("tasks/cancel", {{"taskId", id}});
  EXPECT_EQ(cancelled.at("result").at("status"), "cancelled");
  auto r = c.wait_for(waiting);
  EXPECT_EQ(r.at("error").at("code"), -32602) << r;
  EXPECT_NE(std::string(r.at("error").at("message").as_string()).find("cancelled"),
            std::string::npos);
  EXPECT_EQ(c.call("tasks/cancel", {{"taskId", id}}).at("error").at("code"), -32602);
  std::this_thread::sleep_for(100ms);  // the handler sees its stop token and returns
  EXPECT_EQ(c.call("tasks/get", {{"taskId", id}}).at("result").at("status"), "cancelled");
  EXPECT_EQ(c.statuses(id), std::vector<std::string>{"cancelled"});
}

TEST(stdio_tasks, a_task_that_elicits_is_input_required_until_the_client_answers) {
  wire_client c({"--task-store", ":memory:"}, object{{"elicitation", object{{"form", object{}}}}});
  const auto id = task_id(c.call("tools/call", task_call("elicit_task", {{"message", "Name?"}})));
  auto r = c.wait_for(c.request("tasks/result", {{"taskId", id}}), [&](const object& req) {
    EXPECT_EQ(req.at("method"), "elicitation/create");
    EXPECT_EQ(req.at("params").at("message"), "Name?");
    EXPECT_EQ(req.at("params").at("_meta").at(related_key).at("taskId"), id.c_str());
    return value(object{{"action", "accept"}, {"content", object{{"answer", "Ada"}}}});
  });
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "answer: Ada") << r;
  EXPECT_EQ(c.received_requests.size(), 1U);
  // Statuses go out once the client asked about the task: input_required only when the task
  // reached it after tasks/result arrived, working again after the answer; the end is told by
  // the tasks/result answer, not by a notification as well.
  const auto told = c.statuses(id);
  if (told.size() == 2U) {
    EXPECT_EQ(told, (std::vector<std::string>{"input_required", "working"}));
  } else {
    EXPECT_EQ(told, std::vector<std::string>{"working"});
  }
}

TEST(stdio_tasks, the_sqlite_store_keeps_tasks_across_a_kill_then_reruns_or_fails_the_unfinished) {
  const auto db =
      std::filesystem::temp_directory_path() / ("mcp-tasks-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(db);
  std::string done_id, waiting_id, rerun_id;
  value done_result;
  {
    wire_client c({"--task-store", db.string()},
                  object{{"elicitation", object{{"form", object{}}}}});
    done_id = task_id(c.call("tools/call", task_call("slow_task", {{"steps", 2}})));
    done_result = c.call("tasks/result", {{"taskId", done_id}}).at("result");
    // elicit_task waits for an answer that never comes; slow_task may run again.
    waiting_id = task_id(c.call("tools/call", task_call("elicit_task", {})));
    rerun_id =
        task_id(c.call("tools/call", task_call("slow_task", {{"steps", 20}, {"step_ms", 50}})));
    ::kill(c.proc().pid(), SIGKILL);
    c.proc().wait();
  }
  wire_client c({"--task-store", db.string()});
  EXPECT_EQ(c.call("tasks/get", {{"taskId", done_id}}).at("result").at("status"), "completed");
  EXPECT_EQ(c.call("tasks/result", {{"taskId", done_id}}).at("result"), done_result);
  auto lost = c.call("tasks/get", {{"taskId", waiting_id}}).at("result");
  EXPECT_EQ(lost.at("status"), "failed");
  EXPECT_NE(std::string(lost.at("statusMessage").as_string()).find("stopped"), std::string::npos);
  EXPECT_EQ(c.call("tasks/result", {{"taskId", waiting_id}}).at("error").at("code"), -32603);
  auto again = c.call("tasks/get", {{"taskId", rerun_id}}).at("result");
  EXPECT_EQ(again.at("status"), "working") << again;
  auto rerun = c.call("tasks/result", {{"taskId", rerun_id}});
  EXPECT_EQ(rerun.at("result").at("content").at(0).at("text"), "done 20") << rerun;
  EXPECT_EQ(c.call("tasks/list", {}).at("result").at("tasks").as_array().size(), 3U);
  std::filesystem::remove(db);
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
}

}  // namespace
