// mcp/client.hpp, tasks in both eras against our own server: in 2026-07-28 the tasks extension
// (a tools/call declaring io.modelcontextprotocol/tasks answered with a task, tasks/get polled,
// an input_required task answered with tasks/update through the handlers, tasks/cancel), in
// 2025-11-25 params.task and tasks/result; the same calls give the same answers; wait_task woken
// by notifications/tasks on a listen naming the task. Over HTTP on
// 127.0.0.1 (a server in this process) and over stdio (the demo server). The server's copy of a
// finished task, kept for the tasks/result of a live 2025-11-25 session (not read from the store
// again) and not for a 2026-07-28 task: two sessions of one task owner on memory pairs.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/reflect.hpp>
#include <mcp/server.hpp>
#include <mcp/task_store.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client_util.hpp"
#include "support/forwarding_task_store.hpp"
#include "support/task_tools.hpp"

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

using mcp::test::sleep_out;

void add_tools(mcp::server& s) {
  mcp::test::add_sleeper_and_asker(s);
  s.add_tool({.name = "failer",
              .description = "Fails as a tool",
              .task_support_mode = mcp::task_support::optional},
             []() -> mcp::tool_result<std::string> { return mcp::tool_error{"it broke"}; });
}

mcp::client_options options(mcp::negotiation mode, std::atomic<int>& asked) {
  auto o = client_test::automatic();
  o.negotiate = mode;
  o.on_elicitation = [&asked](const mcp::elicitation_request&, std::stop_token) {
    ++asked;
    return mcp::result<mcp::elicitation_answer>(
        mcp::elicitation_answer::accept(object{{"name", "Ada"}}));
  };
  return o;
}

/// A task run to its end, typed; one cancelled; one asking the user; one failing as a tool.
void exercise(mcp::client_session& c, const std::atomic<int>& asked) {
  auto t = c.call_tool_as_task("sleeper", object{{"ms", 30}});
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_FALSE(t->id.empty());
  EXPECT_FALSE(mcp::is_terminal(t->status) && t->status != mcp::task_status::completed);
  auto done = c.wait_task(t->id, 10s);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, mcp::task_status::completed);
  auto typed = c.task_result<sleep_out>(t->id);
  ASSERT_TRUE(typed) << typed.error().message;
  ASSERT_TRUE(typed->ok()) << typed->tool_error();
  EXPECT_EQ(typed->value().slept, 30);

  auto slow = c.call_tool_as_task("sleeper", object{{"ms", 20000}});
  ASSERT_TRUE(slow) << slow.error().message;
  auto cancelled = c.cancel_task(slow->id);
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, mcp::task_status::cancelled);
  auto after = c.get_task(slow->id);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->status, mcp::task_status::cancelled);
  EXPECT_FALSE(c.task_result(slow->id, {.timeout = 5s}));

  const int before = asked.load();
  auto ask = c.call_tool_as_task("asker");
  ASSERT_TRUE(ask) << ask.error().message;
  auto greeting = c.task_result(ask->id, {.timeout = 10s});
  ASSERT_TRUE(greeting) << greeting.error().message;
  EXPECT_EQ(mcp::client_session::joined_text(*greeting), "hello Ada");
  EXPECT_EQ(asked.load(), before + 1);

  auto fail = c.call_tool_as_task("failer");
  ASSERT_TRUE(fail) << fail.error().message;
  auto failed = c.task_result<std::string>(fail->id, {.timeout = 10s});
  ASSERT_TRUE(failed) << failed.error().message;  // a tool's failure is a result
  EXPECT_FALSE(failed->ok());
  EXPECT_EQ(failed->tool_error(), "it broke");

  auto unknown = c.get_task("no-such-task");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, -32602);
}

TEST(ClientTasks, BothErasOverHttp) {
  mcp::server server(mcp::server_options{.task_poll_interval = 20ms});
  add_tools(server);
  mcp::http_server http(server, mcp::http_server_options{});
  ASSERT_TRUE(http.start());
  const std::string url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp";
  for (const auto mode : {mcp::negotiation::automatic, mcp::negotiation::legacy}) {
    const bool modern = mode == mcp::negotiation::automatic;
    SCOPED_TRACE(modern ? "2026-07-28" : "2025-11-25");
    std::atomic<int> asked{0};
    auto link = mcp::connect_http({.url = url}, options(mode, asked));
    ASSERT_TRUE(link) << link.error().message;
    auto& c = *link->client;
    ASSERT_EQ(c.era(), modern ? mcp::protocol_era::modern : mcp::protocol_era::legacy);
    exercise(c, asked);
    auto listed = c.list_all_tasks();
    if (modern) {
      // The extension has no tasks/list; a plain call (no extension declared) is no task.
      ASSERT_FALSE(listed);
      EXPECT_TRUE(listed.error().is(mcp::errc::not_supported));
      auto plain = c.call_tool<sleep_out>("sleeper", object{{"ms", 5}});
      ASSERT_TRUE(plain) << plain.error().message;
      ASSERT_TRUE(plain->ok()) << plain->tool_error();
      EXPECT_EQ(plain->value().slept, 5);
    } else {
      ASSERT_TRUE(listed) << listed.error().message;
      EXPECT_GE(listed->size(), 4U);
    }
    c.close();
  }
  http.stop();
}

// In 2026-07-28 wait_task names its task in a subscriptions/listen: the server's
// notifications/tasks wakes it long before its next tasks/get (the server suggests polling every
// 10 s), and the application hears the notification as in the old era it hears the status one.
TEST(ClientTasks, NewEraWaitIsWokenByTheTaskNotification) {
  mcp::server server(mcp::server_options{.task_poll_interval = 10s});
  add_tools(server);
  mcp::http_server http(server, mcp::http_server_options{});
  ASSERT_TRUE(http.start());
  std::atomic<int> asked{0};
  std::mutex mu;
  std::vector<std::string> heard;  // the task ids notifications/tasks told of
  object ended;                    // the DetailedTask that told of an end
  auto o = options(mcp::negotiation::automatic, asked);
  o.on_notification = [&](std::string_view method, const object& params) {
    const auto* id = params.if_contains("taskId");
    if (method == "notifications/tasks" && id != nullptr && id->is_string()) {
      std::lock_guard lock(mu);
      heard.emplace_back(id->get_string());
      if (const auto* st = params.if_contains("status"); st && *st != "working") ended = params;
    }
  };
  auto link =
      mcp::connect_http({.url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp"}, o);
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);
  auto t = c.call_tool_as_task("sleeper", object{{"ms", 1500}});
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->poll_interval_ms.value_or(0), 10000);
  const auto t0 = std::chrono::steady_clock::now();
  auto done = c.wait_task(t->id, 30s);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->status, mcp::task_status::completed);
  EXPECT_GE(took, 1s);
  EXPECT_LT(took, 6s) << "waited for the poll, not the notification";
  {
    std::lock_guard lock(mu);
    EXPECT_NE(std::find(heard.begin(), heard.end(), t->id), heard.end());
    // The end carries the result inline (the memory store reads it back for the listener).
    EXPECT_EQ(ended["status"], "completed") << ended;
    ASSERT_TRUE(ended["result"].is_object()) << ended;
    EXPECT_EQ(ended["result"].at("structuredContent").at("slept"), 1500) << ended;
  }
  auto typed = c.task_result<sleep_out>(t->id);
  ASSERT_TRUE(typed) << typed.error().message;
  ASSERT_TRUE(typed->ok()) << typed->tool_error();
  EXPECT_EQ(typed->value().slept, 1500);
  c.close();
  http.stop();
}

// A server of the new era without the extension is not asked for a task.
TEST(ClientTasks, NewEraServerWithoutTheExtension) {
  mcp::server server;
  server.add_tool({.name = "plain", .description = "d"}, [] { return std::string("x"); });
  mcp::http_server http(server, mcp::http_server_options{});
  ASSERT_TRUE(http.start());
  std::atomic<int> asked{0};
  auto link = mcp::connect_http({.url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp"},
                                options(mcp::negotiation::automatic, asked));
  ASSERT_TRUE(link) << link.error().message;
  ASSERT_EQ(link->client->era(), mcp::protocol_era::modern);
  auto t = link->client->call_tool_as_task("plain");
  ASSERT_FALSE(t);
  EXPECT_TRUE(t.error().is(mcp::errc::not_supported)) << t.error().message;
  link->client->close();
  http.stop();
}

// The demo over stdio: its task tools in the new era (elicit_task through tasks/update).
TEST(ClientTasks, NewEraOverStdio) {
  std::atomic<int> asked{0};
  auto o = options(mcp::negotiation::automatic, asked);
  o.on_elicitation = [&asked](const mcp::elicitation_request&, std::stop_token) {
    ++asked;
    return mcp::result<mcp::elicitation_answer>(
        mcp::elicitation_answer::accept(object{{"answer", "42"}}));
  };
  auto s = client_test::launch_demo(std::move(o));
  ASSERT_TRUE(s) << s.error().message;
  auto& c = *s->client;
  ASSERT_EQ(c.era(), mcp::protocol_era::modern);
  auto t = c.call_tool_as_task("must_task", object{{"text", "later"}});
  ASSERT_TRUE(t) << t.error().message;
  auto r = c.task_result<std::string>(t->id, {.timeout = 10s});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok()) << r->tool_error();
  EXPECT_EQ(r->value(), "later");

  auto e = c.call_tool_as_task("elicit_task", object{{"message", "The answer?"}});
  ASSERT_TRUE(e) << e.error().message;
  auto answer = c.task_result(e->id, {.timeout = 10s});
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(mcp::client_session::joined_text(*answer), "answer: 42");
  EXPECT_EQ(asked.load(), 1);

  auto slow = c.call_tool_as_task("slow_task", object{{"steps", 1000}, {"step_ms", 20}});
  ASSERT_TRUE(slow) << slow.error().message;
  auto cancelled = c.cancel_task(slow->id);
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, mcp::task_status::cancelled);
  c.close();
}

/// The memory store, counting its reads: whether an answer came from the store or from the
/// copy the server keeps.
class counted_store final : public mcp::test::forwarding_task_store {
 public:
  counted_store() : forwarding_task_store(mcp::make_memory_task_store()) {}
  std::atomic<int> gets{0};

  mcp::result<std::optional<mcp::task_record>> get(std::string_view id,
                                                   std::string_view owner) override {
    ++gets;
    return forwarding_task_store::get(id, owner);
  }
};

/// A client session on a memory pair to `server`, its server session owning tasks as "owner".
std::shared_ptr<mcp::client_session> attach(mcp::server& server, mcp::client_options o) {
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto s = server.open_session(server_end, {.task_owner = "owner"});
  server_end->on_receive([s](std::string_view m) { s->receive(m); });
  auto c = std::make_shared<mcp::client_session>(client_end, std::move(o));
  std::weak_ptr<mcp::client_session> weak = c;
  client_end->on_receive([weak](std::string_view m) {
    if (auto k = weak.lock()) k->receive(m);
  });
  return c;
}

/// Polls tasks/get until the task ended, then lets the server finish keeping it.
void until_ended(mcp::client_session& c, const std::string& id) {
  for (int i = 0; i < 500; ++i) {
    auto t = c.get_task(id);
    if (t && mcp::is_terminal(t->status)) break;
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(200ms);  // the copy is kept after the store says completed
}

TEST(ClientTasks, FinishedTaskKeptOnlyForALive2025Session) {
  auto store = std::make_shared<counted_store>();
  mcp::server server(mcp::server_options{.task_store = store});
  add_tools(server);
  std::atomic<int> asked{0};
  auto legacy = attach(server, options(mcp::negotiation::legacy, asked));
  auto modern = attach(server, options(mcp::negotiation::automatic, asked));
  ASSERT_TRUE(legacy->initialize());
  ASSERT_TRUE(modern->initialize());
  ASSERT_EQ(legacy->era(), mcp::protocol_era::legacy);
  ASSERT_EQ(modern->era(), mcp::protocol_era::modern);

  // A 2025-11-25 task, finished while its session lives: tasks/result gets the kept copy.
  auto old = legacy->call_tool_as_task("sleeper", object{{"ms", 1}});
  ASSERT_TRUE(old) << old.error().message;
  until_ended(*legacy, old->id);
  int before = store->gets.load();
  auto r = legacy->task_result(old->id);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(store->gets.load(), before) << "read from the store, not the kept copy";

  // A 2026-07-28 task of the same owner: nothing kept, tasks/result reads the store.
  auto fresh = modern->call_tool_as_task("sleeper", object{{"ms", 1}});
  ASSERT_TRUE(fresh) << fresh.error().message;
  ASSERT_FALSE(fresh->id.empty()) << "answered at once, not as a task";
  until_ended(*modern, fresh->id);
  before = store->gets.load();
  auto r2 = legacy->task_result(fresh->id);
  ASSERT_TRUE(r2) << r2.error().message;
  EXPECT_GT(store->gets.load(), before) << "a 2026-07-28 task was kept";
  legacy->close();
  modern->close();
}

}  // namespace
