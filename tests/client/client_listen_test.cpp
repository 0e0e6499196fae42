// The client's subscriptions/listen (2026-07-28) against a raw server on 127.0.0.1 that shows
// what reaches the wire: a listen the server ends at once is not sent again without a pause
// (at least ~250 ms between two), and a wait_task's listen (taskIds) does not outlive the wait:
// the server sees its stream closed, and a listen still wanted for list changes is sent again
// without the task.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "raw_http_server.hpp"

namespace {

using mcp::json::object;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

/// A 2026-07-28 server in a few lines. It declares tools.listChanged (`list_changes`) and the
/// tasks extension (`tasks`); tools/call starts task "t1", which tasks/get reports completed at
/// its third reading. A listen is answered at once (`hold` false: it ends as soon as it began)
/// or acknowledged and held until the client closes its stream. Records each listen.
class listen_server {
 public:
  struct listen {
    clock_type::time_point opened;
    object notifications;  // what it asked to hear
    bool closed = false;   // the client closed its stream
  };

  listen_server(bool list_changes, bool tasks, bool hold)
      : list_changes_(list_changes), tasks_(tasks), hold_(hold) {}

  [[nodiscard]] std::string url() const { return http_.url(); }

  std::vector<listen> listens() {
    std::lock_guard lock(mu_);
    return listens_;
  }
  /// Waits up to 5 s until `done` holds of the listens.
  bool until(const std::function<bool(const std::vector<listen>&)>& done) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return done(listens_); });
  }

 private:
  static void answer(int c, std::string_view status, std::string_view type,
                     const std::string& body) {
    std::string out = "HTTP/1.1 " + std::string(status) + "\r\n";
    if (!type.empty()) out += "Content-Type: " + std::string(type) + "\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
  }
  static std::string response(const mcp::json::value& id, object result) {
    return mcp::json::serialize(object{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
  }

  object result_of(const std::string& method) {
    if (method == "server/discover") {
      object caps{{"tools", list_changes_ ? object{{"listChanged", true}} : object{}}};
      if (tasks_) caps["extensions"] = object{{"io.modelcontextprotocol/tasks", object{}}};
      return object{{"resultType", "complete"},
                    {"supportedVersions", mcp::json::array{"2026-07-28"}},
                    {"capabilities", caps},
                    {"ttlMs", 0},
                    {"cacheScope", "public"}};
    }
    if (method == "tools/call") {
      return object{{"resultType", "task"}, {"taskId", "t1"}, {"status", "working"}};
    }
    if (method == "tasks/get") {
      std::lock_guard lock(mu_);
      if (++readings_ < 3) {
        return object{{"resultType", "complete"},
                      {"taskId", "t1"},
                      {"status", "working"},
                      {"pollIntervalMs", 50}};
      }
      object text{{"type", "text"}, {"text", "done"}};
      return object{{"resultType", "complete"},
                    {"taskId", "t1"},
                    {"status", "completed"},
                    {"result", object{{"content", mcp::json::array{text}}}}};
    }
    return object{{"resultType", "complete"}, {"tools", mcp::json::array{}}};
  }

  void serve(int c) {
    std::string buf;
    std::string body;
    while (mcp_test::read_http_request(c, buf, &body)) {
      auto v = mcp::parse_json(body);
      const auto* msg = v && v->is_object() ? &v->get_object() : nullptr;
      const auto* id = msg != nullptr ? msg->if_contains("id") : nullptr;
      const auto* m = msg != nullptr ? msg->if_contains("method") : nullptr;
      if (id == nullptr || m == nullptr || !m->is_string()) {
        answer(c, "202 Accepted", {}, {});
        continue;
      }
      const std::string method(m->get_string());
      if (method != "subscriptions/listen") {
        answer(c, "200 OK", "application/json", response(*id, result_of(method)));
        continue;
      }
      std::size_t mine = 0;
      {
        std::lock_guard lock(mu_);
        mine = listens_.size();
        const auto* p = msg->if_contains("params");
        const auto* n =
            p != nullptr && p->is_object() ? p->get_object().if_contains("notifications") : nullptr;
        listens_.push_back(
            {clock_type::now(), n != nullptr && n->is_object() ? n->get_object() : object{}});
        cv_.notify_all();
      }
      if (!hold_) {  // ended as soon as it began
        answer(c, "200 OK", "application/json", response(*id, object{{"resultType", "complete"}}));
        continue;
      }
      object ack{
          {"jsonrpc", "2.0"},
          {"method", "notifications/subscriptions/acknowledged"},
          {"params", object{{"_meta", object{{"io.modelcontextprotocol/subscriptionId", *id}}},
                            {"notifications", listens()[mine].notifications}}}};
      const std::string head =
          "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: message\ndata: " +
          mcp::json::serialize(ack) + "\n\n";
      ::send(c, head.data(), head.size(), MSG_NOSIGNAL);
      char tmp[256];
      while (::recv(c, tmp, sizeof tmp, 0) > 0) {
      }
      std::lock_guard lock(mu_);
      listens_[mine].closed = true;
      cv_.notify_all();
      return;
    }
  }

  const bool list_changes_, tasks_, hold_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<listen> listens_;
  int readings_ = 0;
  mcp_test::raw_http_server http_{[this](int c) { serve(c); }};  // last: it calls serve()
};

std::string describe(const std::vector<listen_server::listen>& l) {
  std::string out = std::to_string(l.size()) + " listens:";
  for (const auto& x : l) {
    out += " " + mcp::json::serialize(x.notifications) + (x.closed ? " (closed)" : " (open)");
  }
  return out;
}

mcp::client_options automatic() {
  mcp::client_options o;
  o.info = {.name = "listen-test", .version = "1"};
  o.negotiate = mcp::negotiation::automatic;
  o.on_notification = [](std::string_view, const object&) {};  // a listen is kept for it
  return o;
}

TEST(ClientListenRaw, PausesBeforeAskingAgainAfterAListenThatEndedAtOnce) {
  listen_server srv(/*list_changes=*/true, /*tasks=*/false, /*hold=*/false);
  auto link = mcp::connect_http({.url = srv.url()}, automatic());
  ASSERT_TRUE(link) << link.error().message;
  ASSERT_EQ(link->client->era(), mcp::protocol_era::modern);
  std::this_thread::sleep_for(1200ms);
  const auto seen = srv.listens();
  link->client->close();
  // Opened, ended at once, opened again after a pause: 250 ms, doubling, each ±25 %.
  ASSERT_GE(seen.size(), 2U);
  EXPECT_LE(seen.size(), 5U);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].opened - seen[i - 1].opened, 180ms)
        << "between listens " << i - 1 << " and " << i;
  }
}

/// Connects to `srv`, starts a task and waits for it to complete; the client, or null.
std::shared_ptr<mcp::client_session> wait_for_a_task(listen_server& srv) {
  auto link = mcp::connect_http({.url = srv.url()}, automatic());
  EXPECT_TRUE(link) << link.error().message;
  if (!link) return nullptr;
  auto task = link->client->call_tool_as_task("slow", {});
  EXPECT_TRUE(task) << task.error().message;
  if (!task) return nullptr;
  auto done = link->client->wait_task(task->id, 10s);
  EXPECT_TRUE(done) << done.error().message;
  EXPECT_EQ(done ? done->status : mcp::task_status::failed, mcp::task_status::completed);
  return link->client;
}

TEST(ClientListenRaw, WaitTaskClosesTheListenNamingItsTask) {
  listen_server srv(/*list_changes=*/false, /*tasks=*/true, /*hold=*/true);
  auto c = wait_for_a_task(srv);
  ASSERT_TRUE(c);
  // The only listen was the task's: it ends with the wait, and none replaces it.
  EXPECT_TRUE(srv.until([](const auto& l) { return l.size() == 1 && l[0].closed; }))
      << describe(srv.listens());
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(srv.listens().size(), 1U);
  EXPECT_TRUE(srv.listens()[0].notifications.contains("taskIds"));
  c->close();
}

TEST(ClientListenRaw, WaitTaskLeavesAListenWithoutItsTask) {
  listen_server srv(/*list_changes=*/true, /*tasks=*/true, /*hold=*/true);
  auto c = wait_for_a_task(srv);
  ASSERT_TRUE(c);
  // Every listen but the last is closed, and the last no longer names the task.
  EXPECT_TRUE(srv.until([](const auto& l) {
    if (l.empty() || l.back().notifications.contains("taskIds")) return false;
    for (std::size_t i = 0; i + 1 < l.size(); ++i) {
      if (!l[i].closed) return false;
    }
    return true;
  }));
  const auto seen = srv.listens();
  ASSERT_GE(seen.size(), 2U);
  EXPECT_FALSE(seen.back().closed);
  EXPECT_TRUE(seen.back().notifications.contains("toolsListChanged"));
  bool named = false;
  for (const auto& l : seen) named = named || l.notifications.contains("taskIds");
  EXPECT_TRUE(named);  // the wait's own listen named it
  c->close();
}

}  // namespace
