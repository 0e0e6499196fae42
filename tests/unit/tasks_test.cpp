// Tasks through mcp/server.hpp over in-memory sessions: binding to the requestor, the task
// executor, the ttl, older protocol eras, and a store shared by two servers.
#include <mcp/server.hpp>
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "support/wire.hpp"
#include <unistd.h>

namespace {

using mcp::json::object;
using mcp::json::value;
using mcp::test::wire;
using namespace std::chrono_literals;

struct steps_in {
  int ms = 0;
};
MCP_FIELDS(steps_in, (ms, {.defaulted = true}))

void add_sleeper(mcp::server& s, mcp::task_support mode = mcp::task_support::optional) {
  s.add_tool({.name = "sleeper", .description = "Sleeps", .task_support_mode = mode},
             [](mcp::tool_context& ctx, const steps_in& in) -> std::string {
               for (int i = 0; i < in.ms && !ctx.cancelled(); ++i) std::this_thread::sleep_for(1ms);
               return "slept";
             });
}

object task_call(int ms, object task = object{}) {
  return object{{"name", "sleeper"}, {"arguments", object{{"ms", ms}}}, {"task", std::move(task)}};
}

std::string id_of(const value& created) {
  return std::string(created.at("result").at("task").at("taskId").as_string());
}

/// Reads until the response with `id`, counting status notifications on the way.
value response_to(wire& w, int id, int* statuses = nullptr) {
  for (;;) {
    auto m = w.next(5s);
    if (!m) return value("<timeout>");
    const auto& o = m->as_object();
    if (o.contains("method")) {
      if (statuses && o.at("method") == "notifications/tasks/status") ++*statuses;
      continue;
    }
    if (o.at("id") == id) return *m;
  }
}

TEST(tasks, a_task_is_seen_only_by_its_owner) {
  mcp::server s;
  add_sleeper(s);
  wire alice(s, {.task_owner = "alice"});
  wire bob(s, {.task_owner = "bob"});
  alice.initialize();
  bob.initialize();
  const auto id = id_of(alice.call("tools/call", task_call(200), 1));
  for (const char* m : {"tasks/get", "tasks/result", "tasks/cancel"}) {
    EXPECT_EQ(bob.call(m, {{"taskId", id}}, 2).at("error").at("code"), -32602) << m;
  }
  EXPECT_TRUE(bob.call("tasks/list", {}, 3).at("result").at("tasks").as_array().empty());
  int alice_statuses = 0;
  alice.send(object{{"jsonrpc", "2.0"},
                    {"id", 4},
                    {"method", "tasks/result"},
                    {"params", object{{"taskId", id}}}});
  EXPECT_EQ(response_to(alice, 4, &alice_statuses).at("result").at("content").at(0).at("text"),
            "slept");
  EXPECT_EQ(alice_statuses, 0);  // the tasks/result answer tells alice the task ended
  std::this_thread::sleep_for(50ms);
  while (auto m = bob.next(10ms)) ADD_FAILURE() << "bob was told: " << *m;
  // Two sessions of one owner (e.g. one principal on two HTTP sessions) share the tasks.
  wire alice2(s, {.task_owner = "alice"});
  alice2.initialize();
  EXPECT_EQ(alice2.call("tasks/get", {{"taskId", id}}, 5).at("result").at("status"), "completed");
}

TEST(tasks, handlers_run_on_the_task_executor_when_one_is_given) {
  struct counting : mcp::executor {
    std::shared_ptr<mcp::executor> inner = mcp::make_thread_pool(1);
    std::atomic<int> posted{0};
    void post(mcp::unique_function<void()> work) override {
      ++posted;
      inner->post(std::move(work));
    }
  };
  auto jobs = std::make_shared<counting>();
  mcp::server s({.task_executor = jobs});
  add_sleeper(s);
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/call", object{{"name", "sleeper"}, {"arguments", object{}}}, 1)
                .at("result")
                .at("content")
                .at(0)
                .at("text"),
            "slept");
  EXPECT_EQ(jobs->posted.load(), 0);  // plain calls stay on the handler executor
  const auto id = id_of(w.call("tools/call", task_call(1), 2));
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 3},
                {"method", "tasks/result"},
                {"params", object{{"taskId", id}}}});
  EXPECT_EQ(response_to(w, 3).at("result").at("content").at(0).at("text"), "slept");
  EXPECT_EQ(jobs->posted.load(), 1);
}

TEST(tasks, a_task_is_accepted_while_every_handler_thread_is_busy) {
  // One handler thread, held by the first task until the second is accepted: the second's
  // start is not handed to the busy thread (it is stored and answered on the session's side).
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  // A SQLite store: its tasks' starts are handed to a free handler thread (the memory store's
  // are stored on the session's side at once).
  const auto path = std::filesystem::temp_directory_path() /
                    ("mcp_tasks_busy_" + std::to_string(::getpid()) + ".db");
  struct remove_files {
    std::filesystem::path p;
    ~remove_files() {
      for (const char* end : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + end);
    }
  } cleanup{path};
  auto store = mcp::make_sqlite_task_store(path.string());
  ASSERT_TRUE(store) << store.error().message;
  mcp::server s({.handler_executor = mcp::make_thread_pool(1), .task_store = *store});
  s.add_tool({.name = "holder",
              .description = "Waits to be let go",
              .task_support_mode = mcp::task_support::optional},
             [&](mcp::tool_context& /*ctx*/, const steps_in& /*in*/) -> std::string {
               std::unique_lock lock(mu);
               cv.wait(lock, [&] { return release; });
               return "let go";
             });
  struct let_go {  // whatever the test found, before the server goes
    std::mutex& mu;
    std::condition_variable& cv;
    bool& release;
    ~let_go() {
      {
        const std::lock_guard lock(mu);
        release = true;
      }
      cv.notify_all();
    }
  } on_exit{mu, cv, release};
  wire w(s);
  w.initialize();
  const object call{{"name", "holder"}, {"arguments", object{}}, {"task", object{}}};
  const auto first = id_of(w.call("tools/call", call, 1));
  const auto second = w.call("tools/call", call, 2);  // the thread still holds the first task
  {
    const std::lock_guard lock(mu);
    EXPECT_FALSE(release);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(second.as_object().contains("result")) << second;
  int id = 3;
  for (const auto& task : {first, id_of(second)}) {
    w.send(object{{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "tasks/result"},
                  {"params", object{{"taskId", task}}}});
    EXPECT_EQ(response_to(w, id).at("result").at("content").at(0).at("text"), "let go");
    ++id;
  }
}

TEST(tasks, the_pipeline_and_the_handler_see_the_task_id) {
  struct recorder : mcp::call_interceptor {
    std::mutex mu;
    std::vector<std::string> seen;
    void intercept(const mcp::tool_call& call, const std::function<void()>& next) override {
      {
        std::lock_guard lock(mu);
        seen.emplace_back(call.context().task_id());
      }
      next();
    }
  };
  auto rec = std::make_shared<recorder>();
  mcp::server s;
  s.use(rec);
  s.add_tool({.name = "who", .description = "d", .task_support_mode = mcp::task_support::optional},
             [](mcp::tool_context& ctx) { return std::string(ctx.task_id()); });
  wire w(s);
  w.initialize();
  auto plain = w.call("tools/call", object{{"name", "who"}, {"arguments", object{}}}, 1);
  EXPECT_EQ(plain.at("result").at("content").at(0).at("text"), "");
  const auto id = id_of(w.call("tools/call", object{{"name", "who"}, {"task", object{}}}, 2));
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 3},
                {"method", "tasks/result"},
                {"params", object{{"taskId", id}}}});
  EXPECT_EQ(response_to(w, 3).at("result").at("content").at(0).at("text"), id.c_str());
  std::lock_guard lock(rec->mu);
  EXPECT_EQ(rec->seen, (std::vector<std::string>{"", id}));
}

TEST(tasks, a_call_the_pipeline_refuses_creates_no_task) {
  struct deny_first : mcp::call_interceptor {
    std::atomic<int> calls{0};
    void intercept(const mcp::tool_call& call, const std::function<void()>& next) override {
      if (calls++ == 0) return call.finish(mcp::tool_error_result("rate limited: try later"));
      next();
    }
  };
  mcp::server s;
  s.use(std::make_shared<deny_first>());
  add_sleeper(s);
  wire w(s);
  w.initialize();
  auto refused = w.call("tools/call", task_call(0), 1);
  EXPECT_EQ(refused.at("result").at("isError"), true) << refused;  // answered as a plain call
  EXPECT_TRUE(w.call("tasks/list", {}, 2).at("result").at("tasks").as_array().empty());
  auto created = w.call("tools/call", task_call(0), 3);
  EXPECT_EQ(created.at("result").at("task").at("status"), "working") << created;
  EXPECT_EQ(w.call("tasks/list", {}, 4).at("result").at("tasks").as_array().size(), 1U);
}

TEST(tasks, ttl_is_capped_and_an_expired_task_is_gone) {
  // The ttls leave time for the tasks/get below on a loaded machine; the sleep outlasts both.
  mcp::server s({.task_default_ttl = 300ms, .task_max_ttl = 600ms});
  add_sleeper(s);
  wire w(s);
  w.initialize();
  auto capped = w.call("tools/call", task_call(0, {{"ttl", 100000}}), 1);
  EXPECT_EQ(capped.at("result").at("task").at("ttl"), 600);
  const auto id = id_of(w.call("tools/call", task_call(0), 2));
  EXPECT_EQ(w.call("tasks/get", {{"taskId", id}}, 3).at("result").at("ttl"), 300);
  std::this_thread::sleep_for(800ms);
  EXPECT_EQ(w.call("tasks/get", {{"taskId", id}}, 4).at("error").at("code"), -32602);
  EXPECT_TRUE(w.call("tasks/list", {}, 5).at("result").at("tasks").as_array().empty());
}

// tasks/result of a task still running here waits for it without reading the store, but not
// past its ttl: then the task is gone, as for tasks/get.
TEST(tasks, tasks_result_of_a_running_task_past_its_ttl_is_not_found) {
  mcp::server s({.task_default_ttl = 30ms, .task_max_ttl = 60s});
  add_sleeper(s);
  wire w(s);
  w.initialize();
  const auto id = id_of(w.call("tools/call", task_call(400, {{"ttl", 30}}), 1));
  std::this_thread::sleep_for(80ms);
  const auto late = w.call("tasks/result", {{"taskId", id}}, 2);
  EXPECT_EQ(late.at("error").at("code"), -32602) << late;
  // One running within its ttl (ample, however slow the machine) is waited for and answered.
  const auto running = id_of(w.call("tools/call", task_call(20, {{"ttl", 30000}}), 3));
  const auto done = w.call("tasks/result", {{"taskId", running}}, 4);
  EXPECT_EQ(done.at("result").at("content").at(0).at("text"), "slept") << done;
}

struct name_form {
  std::string name;
};
MCP_FIELDS(name_form, (name))

TEST(tasks, the_store_holds_what_an_input_required_task_asks_and_then_the_answer) {
  auto store = mcp::make_memory_task_store();
  mcp::server s({.task_store = store});
  std::promise<object> answer_seen;
  s.add_tool(
      {.name = "asker", .description = "d", .task_support_mode = mcp::task_support::required},
      [&](mcp::tool_context& ctx) -> std::string {
        auto a = ctx.elicit<name_form>("Your name?");
        answer_seen.set_value(store->get(ctx.task_id(), "alice").value()->input_response);
        return a && a->accepted() ? a->content->name : "none";
      });
  wire w(s, {.task_owner = "alice"});
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "tools/call"},
                {"params", object{{"name", "asker"}, {"task", object{}}}}});
  std::string id;
  value ask;
  while (ask.is_null()) {
    auto m = w.next(5s);
    ASSERT_TRUE(m) << "no elicitation";
    const auto& o = m->as_object();
    if (o.contains("result") && o.at("id") == 1) id = id_of(*m);
    if (o.contains("method") && o.at("method") == "elicitation/create") ask = *m;
  }
  ASSERT_FALSE(id.empty());
  const auto waiting = store->get(id, "alice").value().value();
  EXPECT_EQ(waiting.status, mcp::task_status::input_required);
  EXPECT_EQ(waiting.input_request.at("method"), "elicitation/create");
  EXPECT_EQ(waiting.input_request.at("params").at("message"), "Your name?");
  w.send(object{{"jsonrpc", "2.0"},
                {"id", ask.at("id")},
                {"result", object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}}}});
  auto seen = answer_seen.get_future();
  ASSERT_EQ(seen.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(seen.get().at("result").at("content").at("name"), "Ada");
  auto done = w.call("tasks/result", {{"taskId", id}}, 2);
  EXPECT_EQ(done.at("result").at("content").at(0).at("text"), "Ada") << done;
  EXPECT_TRUE(store->get(id, "alice").value()->input_request.empty());
}

TEST(tasks, at_start_unfinished_tasks_run_again_if_their_tool_allows_it_else_fail) {
  auto store = mcp::make_memory_task_store();
  const auto now =
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  // What an earlier process left: a task of a tool that may run again, one of a tool that may
  // not, and one of a tool this server does not have.
  const auto left = [&](const std::string& id, const std::string& tool) {
    mcp::task_record t{.id = id,
                       .owner = "alice",
                       .created_at = now,
                       .last_updated_at = now,
                       .method = "tools/call"};
    t.rerun = object{
        {"params", object{{"name", tool}, {"arguments", object{{"ms", 1}}}}},
        {"caller", object{{"subject", "alice@example"}, {"claims", object{{"scope", "jobs"}}}}}};
    ASSERT_TRUE(store->create(t));
  };
  left("again", "steady");
  left("lost", "sleeper");
  left("unknown", "gone");
  mcp::server s({.task_store = store});
  add_sleeper(s);
  s.add_tool({.name = "steady",
              .description = "safe to run twice",
              .task_support_mode = mcp::task_support::optional,
              .rerun_after_restart = true},
             [](mcp::tool_context& ctx, const steps_in& in) -> std::string {
               return ctx.caller().subject + " " + std::to_string(in.ms) + " " +
                      std::string(ctx.caller().claims.at("scope").as_string()) + " " +
                      std::string(ctx.task_id());
             });
  EXPECT_EQ(store->get("again", "alice").value()->status, mcp::task_status::working);
  wire w(s, {.task_owner = "alice"});  // the first session starts the recovery
  w.initialize();
  auto again = w.call("tasks/result", {{"taskId", "again"}}, 1);
  EXPECT_EQ(again.at("result").at("content").at(0).at("text"), "alice@example 1 jobs again")
      << again;
  for (const char* id : {"lost", "unknown"}) {
    auto t = w.call("tasks/get", {{"taskId", id}}, 2).at("result");
    EXPECT_EQ(t.at("status"), "failed") << id;
  }
}

TEST(tasks, eras_without_tasks_ignore_the_task_param_and_offer_no_capability) {
  mcp::server s;
  add_sleeper(s);
  wire w(s);
  auto init = w.initialize("2025-06-18");
  EXPECT_FALSE(init.at("result").at("capabilities").as_object().contains("tasks"));
  auto r = w.call("tools/call", task_call(0), 1);
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "slept") << r;
  EXPECT_EQ(w.call("tasks/list", {}, 2).at("error").at("code"), -32601);
  // A server without task tools declares no tasks capability either.
  mcp::server plain;
  wire p(plain);
  EXPECT_FALSE(p.initialize().at("result").at("capabilities").as_object().contains("tasks"));
}

TEST(tasks, the_per_owner_limit_refuses_new_tasks_until_one_ends) {
  mcp::server s({.max_tasks_per_owner = 2});
  add_sleeper(s);
  wire w(s);
  w.initialize();
  const auto a = id_of(w.call("tools/call", task_call(5000), 1));
  const auto b = id_of(w.call("tools/call", task_call(5000), 2));
  EXPECT_EQ(w.call("tools/call", task_call(0), 3).at("error").at("code"), -32600);
  EXPECT_EQ(w.call("tasks/cancel", {{"taskId", a}}, 4).at("result").at("status"), "cancelled");
  EXPECT_TRUE(w.call("tools/call", task_call(0), 5).as_object().contains("result"));
  EXPECT_EQ(w.call("tasks/cancel", {{"taskId", b}}, 6).at("result").at("status"), "cancelled");
}

TEST(tasks, a_task_run_by_another_server_on_the_same_store_is_awaited_too) {
  auto store = mcp::make_memory_task_store();
  mcp::server runner({.task_store = store, .task_poll_interval = 10ms});
  mcp::server reader({.task_store = store, .task_poll_interval = 10ms});
  add_sleeper(runner);
  add_sleeper(reader);
  wire a(runner, {.task_owner = "same"});
  wire b(reader, {.task_owner = "same"});
  a.initialize();
  b.initialize();
  const auto id = id_of(a.call("tools/call", task_call(100), 1));
  auto r = b.call("tasks/result", {{"taskId", id}}, 2);
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "slept") << r;
}

TEST(tasks, an_ended_task_answers_the_same_from_memory_and_from_its_store) {
  auto store = mcp::make_memory_task_store();
  mcp::server s({.task_store = store});
  add_sleeper(s);
  wire w(s, {.task_owner = "alice"});
  w.initialize();
  const auto id = id_of(w.call("tools/call", task_call(0), 1));
  for (int i = 0; i < 500 && !mcp::is_terminal(store->get(id, "alice").value()->status); ++i) {
    std::this_thread::sleep_for(2ms);
  }
  std::this_thread::sleep_for(20ms);  // its answer kept in memory meanwhile
  const auto kept = w.call("tasks/result", {{"taskId", id}}, 2);
  const auto stored = w.call("tasks/result", {{"taskId", id}}, 3);  // the kept one is taken
  ASSERT_TRUE(kept.as_object().contains("result")) << kept;
  EXPECT_EQ(kept.at("result").at("content").at(0).at("text"), "slept");
  const auto& related = kept.at("result").at("_meta").at("io.modelcontextprotocol/related-task");
  EXPECT_EQ(related.at("taskId"), value(id));
  EXPECT_EQ(stored.at("result"), kept.at("result"));
  // The store has the result (moved there, not lost on the way to the answer).
  EXPECT_EQ(store->get(id, "alice").value()->payload.at("result"), kept.at("result"));
  // A cancelled task's answer is its error, the same each time.
  const auto slow = id_of(w.call("tools/call", task_call(5000), 4));
  EXPECT_EQ(w.call("tasks/cancel", {{"taskId", slow}}, 5).at("result").at("status"), "cancelled");
  const auto first = w.call("tasks/result", {{"taskId", slow}}, 6);
  EXPECT_EQ(first.at("error").at("code"), -32602) << first;
  EXPECT_NE(std::string(first.at("error").at("message").as_string()).find("was cancelled"),
            std::string::npos);
  EXPECT_EQ(w.call("tasks/result", {{"taskId", slow}}, 7).at("error"), first.at("error"));
}

}  // namespace
