// mcp/client.hpp: the client's helpers for the server features beside tools: completion
// (complete), resource subscriptions (subscribe / unsubscribe and the updates that follow) and
// the log level (set_log_level and the notifications/message it lets through), each refused
// locally when the server did not declare the capability.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

/// The notifications a client received, waitable.
struct inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::string, object>> got;
  void add(std::string_view method, const object& params) {
    std::lock_guard lock(mu);
    got.emplace_back(std::string(method), params);
    cv.notify_all();
  }
  /// Waits up to a second for `n` notifications of `method`.
  std::size_t wait(std::string_view method, std::size_t n) {
    std::unique_lock lock(mu);
    auto count = [&] {
      return static_cast<std::size_t>(
          std::count_if(got.begin(), got.end(), [&](const auto& m) { return m.first == method; }));
    };
    cv.wait_for(lock, 1s, [&] { return count() >= n; });
    return count();
  }
};

struct feature_server {
  feature_server() {
    s.add_prompt({.name = "greet",
                  .arguments = {{.name = "who", .required = true}},
                  .complete =
                      [](const mcp::completion_request& c) {
                        mcp::completion_result r;
                        for (std::string v : {"alice", "albert", "bob"}) {
                          if (v.starts_with(c.value)) r.values.push_back(v);
                        }
                        if (auto it = c.context.find("lang"); it != c.context.end()) {
                          r.values.push_back("lang=" + it->second);
                        }
                        return r;
                      }},
                 [](const mcp::prompt_request&) -> mcp::result<mcp::get_prompt_result> {
                   return mcp::get_prompt_result{};
                 });
    s.add_resource(
        {.uri = "config://app", .name = "app"},
        [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
          return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "x")}};
        });
    s.add_tool({.name = "shout", .description = "logs at two levels"}, [](mcp::tool_context& ctx) {
      ctx.log(mcp::log_level::debug, "quiet");
      ctx.log(mcp::log_level::error, "loud");
      return std::string("done");
    });
  }
  mcp::server s{mcp::server_options{.info = {.name = "features", .version = "1"}}};
};

struct connected {
  connected(mcp::server& s, inbox& box) {
    auto c = mcp::connect_in_process(
        s, {.on_notification = [&box](std::string_view m, const object& p) { box.add(m, p); }});
    EXPECT_TRUE(c) << (c ? "" : c.error().message);
    if (c) conn = std::move(*c);
    client = conn.client.get();
  }
  mcp::in_process_client conn;
  mcp::client_session* client = nullptr;
};

TEST(client_complete, asks_the_prompts_completion_with_context) {
  feature_server srv;
  inbox box;
  connected c(srv.s, box);
  auto r = c.client->complete({{"type", "ref/prompt"}, {"name", "greet"}}, "who", "al");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("values"), (mcp::json::array{"alice", "albert"}));
  r = c.client->complete({{"type", "ref/prompt"}, {"name", "greet"}}, "who", "b", {{"lang", "en"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->at("values"), (mcp::json::array{"bob", "lang=en"}));
  // An unknown prompt: the server's error, as it sent it.
  r = c.client->complete({{"type", "ref/prompt"}, {"name", "nope"}}, "who", "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, static_cast<int>(mcp::errc::invalid_params));
}

TEST(client_subscribe, updates_arrive_while_subscribed_only) {
  feature_server srv;
  inbox box;
  connected c(srv.s, box);
  ASSERT_TRUE(c.client->subscribe("config://app"));
  srv.s.notify_resource_updated("config://app");
  ASSERT_EQ(box.wait("notifications/resources/updated", 1), 1U);
  {
    std::lock_guard lock(box.mu);
    EXPECT_EQ(box.got.back().second.at("uri"), "config://app");
  }
  ASSERT_TRUE(c.client->unsubscribe("config://app"));
  srv.s.notify_resource_updated("config://app");
  // A ping round trip: anything the server sent before its answer has arrived.
  ASSERT_TRUE(c.client->request("ping", {}));
  EXPECT_EQ(box.wait("notifications/resources/updated", 1), 1U) << "an update after unsubscribe";
}

TEST(client_log_level, filters_what_the_server_sends) {
  feature_server srv;
  inbox box;
  connected c(srv.s, box);
  ASSERT_TRUE(c.client->set_log_level("error"));
  ASSERT_TRUE(c.client->call_tool("shout"));
  ASSERT_EQ(box.wait("notifications/message", 1), 1U);
  ASSERT_TRUE(c.client->set_log_level("debug"));
  ASSERT_TRUE(c.client->call_tool("shout"));
  EXPECT_EQ(box.wait("notifications/message", 3), 3U);
  std::lock_guard lock(box.mu);
  EXPECT_EQ(box.got.front().second.at("level"), "error");
}

TEST(client_log_level, an_unknown_level_is_refused_before_sending) {
  feature_server srv;
  inbox box;
  connected c(srv.s, box);
  auto r = c.client->set_log_level("loud");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::invalid_params));
  EXPECT_NE(r.error().message.find("'loud'"), std::string::npos);
}

TEST(client_features, undeclared_capabilities_are_refused_locally) {
  // Tools only: no completions, no resources, and logging declared by every server.
  mcp::server bare{mcp::server_options{.info = {.name = "bare", .version = "1"}}};
  bare.add_tool({.name = "t", .description = "d"}, [](const object&) { return std::string(); });
  inbox box;
  connected c(bare, box);
  auto r = c.client->complete({{"type", "ref/prompt"}, {"name", "x"}}, "a", "");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::not_supported)) << r.error().message;
  auto s = c.client->subscribe("config://app");
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is(mcp::errc::not_supported)) << s.error().message;
}

}  // namespace
