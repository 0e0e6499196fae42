// mcp/policy.hpp: the policy file format, and the policy applied at the wire (refusals, limits,
// tools/list filtered per caller, reloads; resources and prompts per caller).
#include <mcp/policy.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::test::wire;
using namespace std::chrono_literals;

mcp::call_tool_result ok_result(mcp::tool_context&, const object&) {
  mcp::call_tool_result r;
  r.content.push_back(mcp::text_content("ok"));
  return r;
}

std::string outcome(const mcp::json::value& response) {
  const auto& r = response.at("result").as_object();
  const auto* e = r.if_contains("isError");
  const auto text = std::string(r.at("content").at(0).at("text").as_string());
  return (e != nullptr && e->as_bool()) ? "error: " + text : text;
}

std::vector<std::string> listed(wire& w) {
  std::vector<std::string> names;
  const auto response = w.call("tools/list");
  for (const auto& t : response.at("result").at("tools").as_array()) {
    names.emplace_back(t.at("name").as_string());
  }
  return names;
}

mcp::policy_rules parse(std::string_view text) {
  auto r = mcp::parse_policy(text);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : mcp::policy_rules{};
}

/// A server with read (read-only), write (destructive by default), admin.reset and admin.stats.
void add_tools(mcp::server& s) {
  s.add_tool({.name = "read",
              .description = "d",
              .annotations = {.read_only_hint = true},
              .run_inline = true},
             ok_result);
  s.add_tool({.name = "write", .description = "d", .run_inline = true}, ok_result);
  s.add_tool({.name = "admin.reset",
              .description = "d",
              .annotations = {.read_only_hint = true},
              .run_inline = true},
             ok_result);
  s.add_tool({.name = "admin.stats",
              .description = "d",
              .annotations = {.read_only_hint = true},
              .run_inline = true},
             ok_result);
}

TEST(policy_file, ParsesEveryMember) {
  const auto r = parse(R"({
    "defaults": {"rate": {"per_second": 5}, "max_concurrent": 4, "deadline_ms": 1000,
                 "max_output_bytes": 2048},
    "destructive_tools_need_grant": true,
    "tools": {"write": {"grant": true, "scopes": ["db.write"], "rate": {"per_second": 1, "burst": 3}},
              "admin.*": {"roles": ["ops"]}, "debug": {"deny": true}},
    "principals": {"https://auth.test alice": {"roles": ["ops"], "rate": {"per_second": 100}}}
  })");
  EXPECT_TRUE(r.destructive_tools_need_grant);
  ASSERT_TRUE(r.defaults.rate);
  EXPECT_EQ(r.defaults.rate->per_second, 5);
  EXPECT_EQ(r.defaults.rate->burst, 10);  // 2 × per_second by default
  EXPECT_EQ(r.defaults.max_concurrent, 4U);
  EXPECT_EQ(r.defaults.deadline, 1000ms);
  EXPECT_EQ(r.defaults.max_output_bytes, 2048U);
  EXPECT_EQ(r.tools.at("write").allow, true);
  EXPECT_EQ(r.tools.at("write").scopes, std::vector<std::string>{"db.write"});
  EXPECT_EQ(r.tools.at("write").rate->burst, 3);
  EXPECT_EQ(r.tools.at("admin.*").roles, std::vector<std::string>{"ops"});
  EXPECT_EQ(r.tools.at("debug").allow, false);
  EXPECT_EQ(r.principals.at("https://auth.test alice").roles, std::vector<std::string>{"ops"});
}

TEST(policy_file, RefusesWhatItCannotApplyNamingTheMember) {
  const std::vector<std::pair<const char*, const char*>> bad{
      {"[]", "policy: policy: must be an object"},
      {R"({"tool": {}})", "policy: tool: unknown member"},
      {R"({"tools": {"x": {"rate": {"per_second": 0}}}})",
       "policy: tools.x.rate.per_second: must be a number > 0"},
      {R"({"tools": {"x": {"rate": {"burst": 2}}}})",
       "policy: tools.x.rate.per_second: is required"},
      {R"({"tools": {"x": {"max_concurrent": -1}}})",
       "policy: tools.x.max_concurrent: must be a whole number > 0"},
      {R"({"tools": {"x": {"deadline_ms": 1.5}}})",
       "policy: tools.x.deadline_ms: must be a whole number > 0"},
      {R"({"tools": {"x": {"deny": true, "grant": true}}})",
       "policy: tools.x: cannot both deny and grant"},
      {R"({"tools": {"x": {"roles": "ops"}}})",
       "policy: tools.x.roles: must be an array of strings"},
      {R"({"tools": {"x": {"scopes": [""]}}})",
       "policy: tools.x.scopes: must be an array of non-empty strings"},
      {R"({"principals": {"p": {"scopes": []}}})", "policy: principals.p.scopes: unknown member"},
      {R"({"destructive_tools_need_grant": 1})",
       "policy: destructive_tools_need_grant: must be true or false"},
      {R"({"resources": {"file:///x": {"rate": {"per_second": 1}}}})",
       "policy: resources.file:///x.rate: unknown member"},
      {R"({"prompts": {"p": {"deny": "yes"}}})", "policy: prompts.p.deny: must be true or false"},
  };
  for (const auto& [text, message] : bad) {
    auto r = mcp::parse_policy(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().message, message) << text;
  }
  auto r = mcp::parse_policy("{");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::parse_error));
}

TEST(tool_policy, RefusesAndHidesPerCaller) {
  mcp::server s;
  s.use(mcp::make_tool_policy(parse(R"({
    "destructive_tools_need_grant": true,
    "tools": {"admin.*": {"roles": ["ops"]}, "admin.stats": {"roles": ["ops", "viewer"]},
              "read": {"scopes": ["read"]}},
    "principals": {"https://auth.test carol": {"roles": ["ops"]}}
  })")));
  add_tools(s);
  mcp::principal alice{.subject = "alice", .scopes = std::vector<std::string>{"read"}};
  mcp::principal bob{.subject = "bob", .scopes = std::vector<std::string>{}};
  mcp::principal dave{.subject = "dave"};
  dave.claims["roles"] = mcp::json::array{"viewer"};
  mcp::principal carol{.subject = "carol", .issuer = "https://auth.test"};
  wire a(s, {.who = alice}), b(s, {.who = bob}), c(s, {.who = carol}), d(s, {.who = dave});
  for (auto* w : {&a, &b, &c, &d}) w->initialize();

  EXPECT_EQ(listed(a), std::vector<std::string>{"read"});  // write needs a grant
  EXPECT_EQ(listed(b), std::vector<std::string>{});
  EXPECT_EQ(listed(c), (std::vector<std::string>{"read", "admin.reset", "admin.stats"}));
  EXPECT_EQ(listed(d), (std::vector<std::string>{"read", "admin.stats"}));

  EXPECT_EQ(outcome(a.call("tools/call", object{{"name", "read"}})), "ok");
  EXPECT_EQ(outcome(b.call("tools/call", object{{"name", "read"}})),
            "error: Access denied: \"bob\" may not call tool \"read\": it needs scope read");
  EXPECT_EQ(outcome(a.call("tools/call", object{{"name", "write"}})),
            "error: Access denied: \"alice\" may not call tool \"write\": it may destroy, and the "
            "policy does not grant it");
  EXPECT_EQ(outcome(a.call("tools/call", object{{"name", "admin.reset"}})),
            "error: Access denied: \"alice\" may not call tool \"admin.reset\": it needs one of "
            "the roles ops");
  EXPECT_EQ(outcome(c.call("tools/call", object{{"name", "admin.reset"}})), "ok");
  EXPECT_EQ(outcome(d.call("tools/call", object{{"name", "admin.stats"}})), "ok");
}

TEST(tool_policy, LimitsPerToolAndPerCaller) {
  mcp::server s;
  std::atomic<bool> release{false};
  s.use(mcp::make_tool_policy(parse(R"({
    "defaults": {"rate": {"per_second": 0.001, "burst": 2}},
    "tools": {"slow": {"max_concurrent": 1, "rate": {"per_second": 1000}},
              "big": {"max_output_bytes": 100}, "late": {"deadline_ms": 50}},
    "principals": {"vip": {"rate": {"per_second": 1000}}}
  })")));
  s.add_tool({.name = "t", .description = "d", .run_inline = true}, ok_result);
  s.add_tool({.name = "slow", .description = "d"}, [&](mcp::tool_context&, const object&) {
    while (!release) std::this_thread::sleep_for(1ms);
    return mcp::call_tool_result{};
  });
  s.add_tool({.name = "big", .description = "d", .run_inline = true},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.content.push_back(mcp::text_content(std::string(500, 'x')));
               return r;
             });
  s.add_tool({.name = "late", .description = "d"}, [](mcp::tool_context& ctx, const object&) {
    for (int i = 0; i < 200 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(5ms);
    return mcp::call_tool_result{};
  });
  wire w(s, {.who = {.subject = "someone"}});
  wire vip(s, {.who = {.subject = "vip"}});
  w.initialize();
  vip.initialize();
  EXPECT_EQ(outcome(w.call("tools/call", object{{"name", "t"}})), "ok");
  EXPECT_EQ(outcome(w.call("tools/call", object{{"name", "t"}})), "ok");
  EXPECT_EQ(
      outcome(w.call("tools/call", object{{"name", "t"}})).rfind("error: Rate limit exceeded", 0),
      0U);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(outcome(vip.call("tools/call", object{{"name", "t"}})), "ok");
  // One slow call at a time.
  w.send(R"({"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow"}})");
  std::this_thread::sleep_for(50ms);
  EXPECT_NE(
      outcome(vip.call("tools/call", object{{"name", "slow"}})).find("Too many concurrent calls"),
      std::string::npos);
  release = true;
  ASSERT_TRUE(w.next_response());
  EXPECT_EQ(
      vip.call("tools/call", object{{"name", "slow"}}).at("result").as_object().contains("isError"),
      false);
  EXPECT_NE(outcome(vip.call("tools/call", object{{"name", "big"}})).find("100"),
            std::string::npos);
  EXPECT_NE(outcome(vip.call("tools/call", object{{"name", "late"}})).find("50 ms"),
            std::string::npos);
}

std::vector<std::string> names_in(const mcp::json::value& response, const char* list,
                                  const char* key) {
  std::vector<std::string> out;
  for (const auto& x : response.at("result").at(list).as_array()) {
    out.emplace_back(x.at(key).as_string());
  }
  return out;
}

TEST(tool_policy, ResourcesAndPromptsAreReadOnlyByWhomTheRulesAllow) {
  mcp::server s;
  s.use(mcp::make_tool_policy(parse(R"({
    "resources": {"file:///secrets/*": {"scopes": ["secrets.read"]},
                  "file:///secrets/never": {"deny": true}},
    "prompts": {"incident_*": {"roles": ["ops"]}}
  })")));
  auto text = [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
    return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "content")}};
  };
  for (const char* uri : {"file:///public", "file:///secrets/key", "file:///secrets/never"}) {
    s.add_resource({.uri = uri, .name = uri}, text);
  }
  auto prompt = [](const mcp::prompt_request&) -> mcp::result<mcp::get_prompt_result> {
    return mcp::get_prompt_result{.description = "d",
                                  .messages = {mcp::prompt_message::user(mcp::text_content("hi"))}};
  };
  s.add_prompt({.name = "hello"}, prompt);
  s.add_prompt({.name = "incident_report"}, prompt);
  wire plain(s, {.who = {.subject = "u", .scopes = std::vector<std::string>{"mcp"}}});
  wire cleared(s, {.who = {.subject = "ops",
                           .claims = object{{"roles", mcp::json::array{"ops"}}},
                           .scopes = std::vector<std::string>{"mcp", "secrets.read"}}});
  plain.initialize();
  cleared.initialize();

  EXPECT_EQ(names_in(plain.call("resources/list"), "resources", "uri"),
            std::vector<std::string>{"file:///public"});
  EXPECT_EQ(names_in(cleared.call("resources/list"), "resources", "uri"),
            (std::vector<std::string>{"file:///public", "file:///secrets/key"}));
  const auto refused = plain.call("resources/read", object{{"uri", "file:///secrets/key"}});
  EXPECT_EQ(refused.at("error").at("code"), -32602);
  EXPECT_NE(std::string(refused.at("error").at("message").as_string())
                .find("it needs scope secrets.read"),
            std::string::npos)
      << refused;
  const auto read = cleared.call("resources/read", object{{"uri", "file:///secrets/key"}});
  EXPECT_EQ(read.at("result").at("contents").at(0).at("text"), "content") << read;
  // Other spellings of a refused URI are refused too, and so is a subscription to it.
  for (const char* spelling :
       {"file:///%73ecrets/key", "file:///public/../secrets/key", "FILE:///secrets/key"}) {
    const auto r = plain.call("resources/read", object{{"uri", spelling}});
    EXPECT_NE(std::string(r.at("error").at("message").as_string()).find("Access denied"),
              std::string::npos)
        << spelling << ": " << r;
  }
  const auto sub = plain.call("resources/subscribe", object{{"uri", "file:///secrets/key"}});
  EXPECT_EQ(sub.at("error").at("code"), -32602) << sub;
  const auto never = cleared.call("resources/read", object{{"uri", "file:///secrets/never"}});
  EXPECT_NE(std::string(never.at("error").at("message").as_string()).find("the policy denies it"),
            std::string::npos)
      << never;

  EXPECT_EQ(names_in(plain.call("prompts/list"), "prompts", "name"),
            std::vector<std::string>{"hello"});
  EXPECT_EQ(names_in(cleared.call("prompts/list"), "prompts", "name"),
            (std::vector<std::string>{"hello", "incident_report"}));
  const auto no_prompt = plain.call("prompts/get", object{{"name", "incident_report"}});
  EXPECT_EQ(no_prompt.at("error").at("code"), -32602);
  EXPECT_NE(std::string(no_prompt.at("error").at("message").as_string())
                .find("it needs one of the roles ops"),
            std::string::npos)
      << no_prompt;
  EXPECT_EQ(cleared.call("prompts/get", object{{"name", "incident_report"}})
                .at("result")
                .at("messages")
                .as_array()
                .size(),
            1U);
}

TEST(tool_policy, FileReloadsApplyToTheNextCallAndABadFileKeepsTheOld) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("mcp-policy-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"tools": {"write": {"deny": true}}})";
  std::atomic<int> changes{0};
  std::string last_error;
  std::mutex mu;
  auto policy = mcp::make_tool_policy(path, {.watch = true,
                                             .watch_interval = 20ms,
                                             .on_change = [&] { ++changes; },
                                             .on_error =
                                                 [&](const mcp::error& e) {
                                                   std::lock_guard lock(mu);
                                                   last_error = e.message;
                                                 }});
  ASSERT_TRUE(policy) << policy.error().message;
  mcp::server s;
  s.use(*policy);
  add_tools(s);
  wire w(s);
  w.initialize();
  EXPECT_EQ(listed(w), (std::vector<std::string>{"read", "admin.reset", "admin.stats"}));
  // Each new content arrives whole with its later mtime (written beside, renamed over): the
  // watcher never sees the content with an mtime that changes again after.
  const auto mtime = std::filesystem::last_write_time(path);
  const auto replace = [&](const char* text, std::filesystem::file_time_type when) {
    auto next = path;
    next += ".next";
    std::ofstream(next) << text;
    std::filesystem::last_write_time(next, when);
    std::filesystem::rename(next, path);
  };
  // A broken file: refused, the old rules stay.
  replace(R"({"tools": {"write": {"deny": "yes"}}})", mtime + 1s);
  auto reload = (*policy)->reload();
  ASSERT_FALSE(reload);
  EXPECT_NE(reload.error().message.find("tools.write.deny: must be true or false"),
            std::string::npos);
  auto seen_error = [&] {
    std::lock_guard lock(mu);
    return !last_error.empty();
  };
  for (int i = 0; i < 100 && !seen_error(); ++i) std::this_thread::sleep_for(10ms);
  {
    std::lock_guard lock(mu);
    EXPECT_NE(last_error.find("must be true or false"), std::string::npos) << last_error;
  }
  EXPECT_EQ(
      outcome(w.call("tools/call", object{{"name", "write"}})).rfind("error: Access denied", 0),
      0U);
  // A good file: the watcher picks it up; the same session sees it and is told.
  replace(R"({"tools": {"read": {"deny": true}}})", mtime + 2s);
  for (int i = 0; i < 200 && changes.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(changes.load(), 1);
  EXPECT_EQ(outcome(w.call("tools/call", object{{"name", "write"}})), "ok");
  EXPECT_EQ(listed(w), (std::vector<std::string>{"write", "admin.reset", "admin.stats"}));
  std::filesystem::remove(path);
  EXPECT_FALSE(mcp::make_tool_policy(path));  // gone: refused with the path
}

TEST(tool_policy, AReloadTellsSessionsTheListChanged) {
  mcp::server s;
  auto policy = mcp::make_tool_policy(mcp::policy_rules{});
  s.use(policy);
  add_tools(s);
  wire w(s);
  w.initialize();
  (void)w.pending();
  policy->set(parse(R"({"tools": {"read": {"deny": true}}})"));
  s.notify_tools_changed();
  auto m = w.next();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->at("method"), "notifications/tools/list_changed");
}

}  // namespace
