// mcp/client.hpp: the host duties of the Tools page in the client library: a confirmation hook
// before each call (with the tool's listed definition and whether its hints are trusted), the
// confirm_unless_read_only rule, an audit record of every call, and the tools cache that
// notifications/tools/list_changed refreshes.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace {

using mcp::json::object;
using namespace std::chrono_literals;

/// The client of an in-process connection to `s` (one line, as tests should need).
struct connected {
  connected(mcp::server& s, mcp::client_options opts) {
    auto c = mcp::connect_in_process(s, std::move(opts));
    EXPECT_TRUE(c) << (c ? "" : c.error().message);
    if (c) conn = std::move(*c);
    client = conn.client.get();
  }
  mcp::in_process_client conn;
  mcp::client_session* client = nullptr;
};

struct counted_server {
  counted_server() {
    s.add_tool({.name = "look", .description = "d", .annotations = {.read_only_hint = true}},
               [this](const object&) {
                 ++calls;
                 return std::string("seen");
               });
    s.add_tool({.name = "wipe", .description = "d"}, [this](const object&) {
      ++calls;
      return std::string("wiped");
    });
    s.add_tool(
        {.name = "fail", .description = "d"},
        [](const object&) -> mcp::tool_result<std::string> { return mcp::tool_error{"it broke"}; });
  }
  mcp::server s{mcp::server_options{.info = {.name = "counted", .version = "1"}}};
  std::atomic<int> calls{0};
};

TEST(client_confirm, a_denied_call_never_reaches_the_server) {
  counted_server srv;
  std::vector<std::string> asked;
  std::vector<mcp::call_record> audit;
  connected c(srv.s, {.confirm =
                          [&](const mcp::call_confirmation& q) {
                            asked.emplace_back(q.tool);
                            EXPECT_NE(q.definition, nullptr) << "the listed Tool is given";
                            if (q.definition != nullptr) {
                              EXPECT_EQ(q.definition->name, "wipe");
                            }
                            EXPECT_FALSE(q.server_trusted);
                            return q.arguments.contains("yes");
                          },
                      .audit = [&](const mcp::call_record& r) { audit.push_back(r); }});
  const auto denied = c.client->call_tool("wipe", {{"no", true}});
  ASSERT_FALSE(denied);
  EXPECT_TRUE(denied.error().is(mcp::errc::user_rejected)) << denied.error().message;
  EXPECT_EQ(srv.calls, 0);
  ASSERT_TRUE(c.client->call_tool("wipe", {{"yes", true}}));
  EXPECT_EQ(srv.calls, 1);
  EXPECT_EQ(asked, (std::vector<std::string>{"wipe", "wipe"}));
  ASSERT_EQ(audit.size(), 2U);
  EXPECT_EQ(audit[0].outcome, "denied");
  EXPECT_EQ(audit[0].server, "counted");
  EXPECT_EQ(audit[0].arguments, (object{{"no", true}}));
  EXPECT_EQ(audit[1].outcome, "ok");
}

TEST(client_confirm, read_only_tools_of_a_trusted_server_go_without_asking) {
  for (const bool trusted : {true, false}) {
    counted_server srv;
    std::vector<std::string> asked;
    connected c(srv.s,
                {.confirm = mcp::confirm_unless_read_only([&](const mcp::call_confirmation& q) {
                   asked.emplace_back(q.tool);
                   return true;
                 }),
                 .trust_server_annotations = trusted});
    ASSERT_TRUE(c.client->call_tool("look"));
    ASSERT_TRUE(c.client->call_tool("wipe"));
    // An untrusted server's readOnlyHint is only a claim: asked all the same.
    const std::vector<std::string> expected =
        trusted ? std::vector<std::string>{"wipe"} : std::vector<std::string>{"look", "wipe"};
    EXPECT_EQ(asked, expected) << "trusted: " << trusted;
  }
  counted_server srv;
  connected c(
      srv.s, {.confirm = mcp::confirm_unless_read_only(nullptr), .trust_server_annotations = true});
  EXPECT_TRUE(c.client->call_tool("look"));
  EXPECT_FALSE(c.client->call_tool("wipe")) << "no one to ask: denied";
}

TEST(client_audit, every_outcome_is_recorded) {
  counted_server srv;
  std::mutex mu;
  std::vector<mcp::call_record> audit;
  connected c(srv.s, {.audit = [&](const mcp::call_record& r) {
                std::lock_guard lock(mu);
                audit.push_back(r);
              }});
  ASSERT_TRUE(c.client->call_tool("look"));
  ASSERT_TRUE(c.client->call_tool("fail"));
  EXPECT_FALSE(c.client->call_tool("nope"));
  ASSERT_EQ(audit.size(), 3U);
  EXPECT_EQ(audit[0].outcome, "ok");
  EXPECT_EQ(audit[0].tool, "look");
  EXPECT_EQ(audit[1].outcome, "tool_error");
  EXPECT_EQ(audit[1].detail, "it broke");
  EXPECT_EQ(audit[2].outcome, "error");
  EXPECT_NE(audit[2].detail.find("nope"), std::string::npos) << audit[2].detail;
  for (const auto& r : audit) EXPECT_GE(r.duration.count(), 0);
}

TEST(client_tools, the_cache_is_refreshed_after_list_changed) {
  counted_server srv;
  std::atomic<int> changed{0};
  connected c(srv.s, {.on_notification = [&](std::string_view method, const object&) {
                if (method == "notifications/tools/list_changed") ++changed;
              }});
  auto first = c.client->tools();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), 3U);
  srv.s.add_tool({.name = "late", .description = "d"}, [](const object&) { return "x"; });
  for (int i = 0; i < 200 && changed == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_GT(changed, 0) << "the server announced the change";
  auto again = c.client->tools();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), 4U);
}

}  // namespace
