// mcp/client.hpp against a real server over the in-memory pair.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

struct fixture {
  explicit fixture(mcp::server& s, mcp::client_options opts = {}) {
    auto [server_end, client_end] = mcp::make_memory_pair();
    session = s.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client = std::make_shared<mcp::client_session>(client_end, std::move(opts));
    // A server thread may still deliver (a progress, an answer) while the test ends and the
    // client goes: the receiver then finds it gone.
    client_end->on_receive([weak = std::weak_ptr<mcp::client_session>(client)](std::string_view m) {
      if (auto c = weak.lock()) c->receive(m);
    });
  }
  std::shared_ptr<mcp::server_session> session;
  std::shared_ptr<mcp::client_session> client;
};

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
std::unique_ptr<mcp::server> make_server() {
  auto owner = std::make_unique<mcp::server>(
      mcp::server_options{.info = {.name = "srv", .version = "1"}, .page_size = 2});
  auto& s = *owner;
  for (int i = 0; i < 5; ++i) {
    s.add_tool({.name = "t" + std::to_string(i), .description = "d"},
               [i](mcp::tool_context&, const object&) {
                 mcp::call_tool_result r;
                 r.content.push_back(mcp::text_content(std::to_string(i)));
                 return r;
               });
  }
  s.add_tool({.name = "progress", .description = "d"}, [](mcp::tool_context& ctx, const object&) {
    for (int k = 1; k <= 3; ++k) ctx.progress(k, 3);
    return mcp::call_tool_result{};
  });
  s.add_tool({.name = "ticks", .description = "d"}, [](mcp::tool_context& ctx, const object&) {
    for (int k = 1; k <= 12 && !ctx.cancelled(); ++k) {  // 12 x 50 ms, progress after each
      std::this_thread::sleep_for(50ms);
      ctx.progress(k, 12);
    }
    return mcp::call_tool_result{};
  });
  s.add_tool({.name = "wait", .description = "d"}, [](mcp::tool_context& ctx, const object&) {
    for (int k = 0; k < 1000 && !ctx.cancelled(); ++k) std::this_thread::sleep_for(2ms);
    return mcp::call_tool_result{};
  });
  s.add_tool({.name = "elicit", .description = "d"}, [](mcp::tool_context& ctx, const object&) {
    auto r =
        ctx.elicit(object{{"message", "Name?"}, {"requestedSchema", object{{"type", "object"}}}});
    if (!r) return mcp::tool_error_result(r.error().message);
    mcp::call_tool_result out;
    out.content.push_back(mcp::text_content(r->at("action").as_string()));
    return out;
  });
  return owner;
}

TEST(client, initializes_lists_every_page_and_calls) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s);
  auto init = f.client->initialize();
  ASSERT_TRUE(init) << init.error().message;
  EXPECT_EQ(init->at("serverInfo").at("name"), "srv");
  auto tools = f.client->list_all_tools();
  ASSERT_TRUE(tools);
  EXPECT_EQ(tools->size(), 9U);
  auto r = f.client->call_tool("t3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("content").at(0).at("text"), "3");
  auto bad = f.client->call_tool("nope");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, -32602);
}

TEST(client, progress_reaches_the_callback) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s);
  ASSERT_TRUE(f.client->initialize());
  std::vector<double> seen;
  std::mutex mu;
  auto r = f.client->call_tool("progress", {}, {.on_progress = [&](const object& p) {
                                 std::lock_guard lock(mu);
                                 seen.push_back(p.at("progress").to_number<double>());
                               }});
  ASSERT_TRUE(r);
  EXPECT_EQ(seen, (std::vector<double>{1, 2, 3}));
}

TEST(client, timeout_sends_cancel_and_the_server_stops) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s);
  ASSERT_TRUE(f.client->initialize());
  auto r = f.client->call_tool("wait", {}, {.timeout = 50ms});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::request_timeout));
  for (int i = 0; i < 200 && f.session->active_calls() > 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(f.session->active_calls(), 0U);
  EXPECT_TRUE(f.client->request("ping", {}));
}

TEST(client, progress_can_reset_the_timeout_up_to_a_hard_maximum) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s);
  ASSERT_TRUE(f.client->initialize());
  // 600 ms of work: a 400 ms timeout ends it unless progress (every 50 ms) resets it.
  auto quiet = f.client->call_tool("ticks", {}, {.timeout = 400ms});
  ASSERT_FALSE(quiet);
  EXPECT_TRUE(quiet.error().is(mcp::errc::request_timeout));
  mcp::request_options opts{.timeout = 400ms, .on_progress = [](const object&) {}};
  opts.reset_on_progress = true;
  auto reset = f.client->call_tool("ticks", {}, opts);
  EXPECT_TRUE(reset) << reset.error().message;  // 600 ms in all, never 400 ms without progress
  opts.max_total = 120ms;
  auto capped = f.client->call_tool("ticks", {}, opts);
  ASSERT_FALSE(capped);
  EXPECT_TRUE(capped.error().is(mcp::errc::request_timeout));
  EXPECT_NE(capped.error().message.find("hard maximum"), std::string::npos);
}

TEST(client, answers_elicitation_when_declared) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(
      s, {.capabilities = object{{"elicitation", object{}}},
          .request_handlers = {
              {"elicitation/create", [](const object& p, std::stop_token) -> mcp::result<object> {
                 EXPECT_EQ(p.at("message"), "Name?");
                 return object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}};
               }}}});
  ASSERT_TRUE(f.client->initialize());
  auto r = f.client->call_tool("elicit");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("content").at(0).at("text"), "accept");
}

TEST(client, a_handler_is_told_when_the_server_stops_waiting_for_its_answer) {
  mcp::server s({.info = {.name = "srv", .version = "1"}});
  s.add_tool({.name = "sample_briefly", .description = "d"},
             [](mcp::tool_context& ctx, const object&) {
               auto r = ctx.sample("q", {.timeout = 200ms});
               return r ? mcp::tool_error_result("answered: " + *r)
                        : mcp::tool_error_result(r.error().message);
             });
  std::atomic<bool> stopped{false};
  std::atomic<long long> waited_ms{-1};
  mcp::client_options o{
      .capabilities = object{{"sampling", object{}}},
      .request_handlers = {{"sampling/createMessage",
                            [&](const object&, std::stop_token stop) -> mcp::result<object> {
                              // A person who never answers: wait for the stop (at most 10 s).
                              const auto t0 = std::chrono::steady_clock::now();
                              std::mutex mu;
                              std::condition_variable_any cv;
                              std::unique_lock lock(mu);
                              cv.wait_for(lock, stop, 10s, [] { return false; });
                              stopped = stop.stop_requested();
                              waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - t0)
                                              .count();
                              return mcp::error{mcp::errc::user_rejected, "too late"};
                            }}}};
  fixture f(s, std::move(o));
  ASSERT_TRUE(f.client->initialize());
  auto r = f.client->call_tool("sample_briefly");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("isError"), true);
  for (int i = 0; i < 500 && waited_ms.load() < 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(stopped.load());  // the server's notifications/cancelled reached the handler
  EXPECT_GE(waited_ms.load(), 150);
  EXPECT_LT(waited_ms.load(), 5000);
}

TEST(client, many_calls_in_flight_from_one_thread_without_waiting) {
  // Declared before the fixture: callbacks of a failing run may come while it closes.
  std::mutex mu;
  std::vector<std::string> audited;
  std::atomic<int> answered{0};
  std::atomic<int> right{0};
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s, {.audit = [&](const mcp::call_record& r) {
              std::lock_guard lock(mu);
              audited.push_back(r.tool + ":" + r.outcome);
            }});
  ASSERT_TRUE(f.client->initialize());
  // Three calls of a tool that takes 2 s are all started at once, without waiting.
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(f.client->call_tool_async("wait", {}, [&](mcp::result<object> r) {
      if (r) ++right;
      ++answered;
    }));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  EXPECT_EQ(answered.load(), 0);
  // Then 20 quick ones, each with its own answer.
  for (int i = 0; i < 20; ++i) {
    ids.push_back(
        f.client->call_tool_async("t" + std::to_string(i % 5), {}, [&, i](mcp::result<object> r) {
          if (r && r->at("content").at(0).at("text") == mcp::json::value(std::to_string(i % 5))) {
            ++right;
          }
          ++answered;
        }));
  }
  for (int k = 0; k < 1000 && answered.load() < 23; ++k) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(answered.load(), 23);
  EXPECT_EQ(right.load(), 23);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 0), 0);
  EXPECT_EQ(std::set<std::int64_t>(ids.begin(), ids.end()).size(), ids.size());
  std::lock_guard lock(mu);
  EXPECT_EQ(audited.size(), 23U);
  EXPECT_EQ(std::count(audited.begin(), audited.end(), "t3:ok"), 4);
  EXPECT_EQ(std::count(audited.begin(), audited.end(), "wait:ok"), 3);
}

TEST(client, an_async_call_is_denied_timed_out_or_closed_like_a_blocking_one) {
  std::mutex mu;
  std::vector<std::string> audited;
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s, {.confirm = [](const mcp::call_confirmation& c) { return c.tool != "t1"; },
                .audit =
                    [&](const mcp::call_record& r) {
                      std::lock_guard lock(mu);
                      audited.push_back(r.tool + ":" + r.outcome);
                    }});
  ASSERT_TRUE(f.client->initialize());
  std::optional<mcp::result<object>> denied;
  EXPECT_EQ(f.client->call_tool_async("t1", {}, [&](mcp::result<object> r) { denied = r; }), 0);
  ASSERT_TRUE(denied.has_value());  // before call_tool_async returned
  ASSERT_FALSE(*denied);
  EXPECT_TRUE(denied->error().is(mcp::errc::user_rejected));
  auto timed_out = std::make_shared<std::promise<mcp::result<object>>>();
  f.client->call_tool_async("wait", {},
                            [timed_out](mcp::result<object> r) { timed_out->set_value(r); },
                            {.timeout = 50ms});
  auto t = timed_out->get_future().get();
  ASSERT_FALSE(t);
  EXPECT_TRUE(t.error().is(mcp::errc::request_timeout)) << t.error().message;
  auto closed = std::make_shared<std::promise<mcp::result<object>>>();
  f.client->call_tool_async("wait", {}, [closed](mcp::result<object> r) { closed->set_value(r); });
  f.client->close();
  auto c = closed->get_future().get();
  ASSERT_FALSE(c);
  EXPECT_TRUE(c.error().is(mcp::errc::connection_closed)) << c.error().message;
  EXPECT_THROW(f.client->call_tool_async("t0", {}, nullptr), std::invalid_argument);
  std::lock_guard lock(mu);
  EXPECT_EQ(audited, (std::vector<std::string>{"t1:denied", "wait:timeout", "wait:error"}));
}

/// Passes messages on to the memory connection, noting which request each cancellation names
/// (send_context::cancels) and how many messages named none.
class cancel_recorder final : public mcp::connection {
 public:
  explicit cancel_recorder(std::shared_ptr<mcp::connection> next) : next_(std::move(next)) {}
  void send(std::string message, const mcp::send_context& ctx) override {
    {
      std::lock_guard lock(mu_);
      const bool cancellation = message.find("notifications/cancelled") != std::string::npos;
      if (ctx.cancels != nullptr) named_.push_back(mcp::jsonrpc::to_string(*ctx.cancels));
      if (cancellation && ctx.cancels == nullptr) ++unnamed_cancellations_;
    }
    next_->send(std::move(message), ctx);
  }
  void close() override { next_->close(); }
  std::vector<std::string> named() {
    std::lock_guard lock(mu_);
    return named_;
  }
  int unnamed_cancellations() {
    std::lock_guard lock(mu_);
    return unnamed_cancellations_;
  }

 private:
  std::shared_ptr<mcp::connection> next_;
  std::mutex mu_;
  std::vector<std::string> named_;
  int unnamed_cancellations_ = 0;
};

TEST(client, every_cancellation_tells_the_transport_which_request_it_gives_up) {
  auto owner = make_server();
  auto& s = *owner;
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto session = s.open_session(server_end);
  server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
  auto recorder = std::make_shared<cancel_recorder>(client_end);
  mcp::client_session client(recorder);
  client_end->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  // A timeout, then `cancel`, then one sent by hand (a string id too), then another notification.
  std::int64_t timed_out = -1;
  ASSERT_FALSE(client.call_tool(
      "wait", {}, {.timeout = 30ms, .on_sent = [&](std::int64_t id) { timed_out = id; }}));
  // The timer releases the caller first and sends the cancellation just after (peer::expire).
  for (const auto until = std::chrono::steady_clock::now() + 5s;
       recorder->named().empty() && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(1ms);
  }
  std::atomic<std::int64_t> sent{-1};
  std::thread canceller([&] {
    // Without on_sent within 10 s it gives up (the call ends when "wait" does; the test fails).
    for (const auto until = std::chrono::steady_clock::now() + 10s;
         sent.load() < 0 && std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(1ms);
    }
    if (sent.load() >= 0) client.cancel(sent.load(), "stop");
  });
  auto r = client.call_tool("wait", {}, {.on_sent = [&](std::int64_t id) { sent = id; }});
  canceller.join();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::cancelled)) << r.error().message;
  client.notify("notifications/cancelled", {{"requestId", 41}, {"reason", "by hand"}});
  client.notify("notifications/cancelled", {{"requestId", "job-7"}});
  client.notify("notifications/roots/list_changed");
  EXPECT_EQ(recorder->named(),
            (std::vector<std::string>{std::to_string(timed_out), std::to_string(sent.load()), "41",
                                      "\"job-7\""}));
  EXPECT_EQ(recorder->unnamed_cancellations(), 0);
  client.close();
}

TEST(client, close_fails_waiting_requests) {
  auto owner = make_server();
  auto& s = *owner;
  fixture f(s);
  ASSERT_TRUE(f.client->initialize());
  std::thread closer([&] {
    std::this_thread::sleep_for(30ms);
    f.client->close();
  });
  auto r = f.client->call_tool("wait");
  closer.join();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed));
}

}  // namespace
