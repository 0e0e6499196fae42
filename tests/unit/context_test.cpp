// Tests of mcp/context.hpp and the handler forms it serves: reply<Out> (tools, resources,
// prompts), move-only handlers, contexts in resource and prompt handlers (progress, logging,
// elicitation, cancellation), typed prompt arguments and template variables, the asynchronous
// requests to the client, and remove_tool waiting for (or cancelling) running calls.
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace std::chrono_literals;

struct name_in {
  std::string name;
};
MCP_FIELDS(name_in, (name, "Who"))

struct greet_args {
  std::string name;
  std::optional<std::string> style;
};
MCP_FIELDS(greet_args, (name, "Who to greet"), (style, "How"))

struct user_vars {
  std::string id;
};
MCP_FIELDS(user_vars, (id))

struct yes_no {
  bool yes = false;
};
MCP_FIELDS(yes_no, (yes))

std::string text_of(const mcp::json::value& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

TEST(context, a_tool_replies_later_from_another_thread) {
  // The replying threads are joined before the session and server go (a detached one held its
  // reply, and through it the session, past the test).
  std::mutex mu;
  std::vector<std::thread> repliers;
  struct join_at_end {  // also when an assertion or an exception ends the test early
    std::mutex& mu;
    std::vector<std::thread>& threads;
    join_at_end(std::mutex& m, std::vector<std::thread>& t) : mu(m), threads(t) {}
    join_at_end(const join_at_end&) = delete;
    join_at_end& operator=(const join_at_end&) = delete;
    ~join_at_end() {
      const std::lock_guard lock(mu);
      for (auto& t : threads) {
        if (t.joinable()) t.join();
      }
    }
  } joiner{mu, repliers};
  mcp::server s;
  s.add_tool({.name = "later", .description = "Replies later"},
             [&mu, &repliers](const name_in& in, mcp::reply<std::string> reply) {
               const std::lock_guard lock(mu);
               repliers.emplace_back([in, reply] {
                 std::this_thread::sleep_for(5ms);
                 reply("hello " + in.name);
                 reply("ignored: only the first completion counts");
               });
             });
  s.add_tool({.name = "nothing", .description = "Replies void"},
             [](mcp::reply<void> reply) { reply(); });
  wire w(s);
  w.initialize();
  EXPECT_EQ(text_of(w.call("tools/call",
                           object{{"name", "later"}, {"arguments", object{{"name", "Ada"}}}})),
            "hello Ada");
  EXPECT_EQ(w.call("tools/call", object{{"name", "nothing"}}).at("result"), j(R"({"content":[]})"));
}

TEST(context, handlers_may_be_move_only) {
  mcp::server s;
  auto owned = std::make_unique<std::string>("owned");
  s.add_tool({.name = "owns", .description = "Owns a unique_ptr"},
             [p = std::move(owned)] { return *p; });
  auto res = std::make_unique<std::string>("resource text");
  s.add_resource({.uri = "test://owned", .name = "owned"}, [p = std::move(res)] { return *p; });
  auto raw = std::make_unique<int>(7);
  s.add_tool({.name = "raw", .description = "Raw and move-only"},
             [p = std::move(raw)](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.content.push_back(mcp::text_content(std::to_string(*p)));
               return r;
             });
  wire w(s);
  w.initialize();
  EXPECT_EQ(text_of(w.call("tools/call", object{{"name", "owns"}})), "owned");
  EXPECT_EQ(text_of(w.call("tools/call", object{{"name", "raw"}})), "7");
  EXPECT_EQ(w.call("resources/read", object{{"uri", "test://owned"}})
                .at("result")
                .at("contents")
                .at(0)
                .at("text"),
            "resource text");
}

TEST(context, typed_prompts_infer_their_arguments) {
  mcp::server s;
  s.add_prompt({.name = "greet", .description = "Greets"}, [](const greet_args& a) {
    return "Hello " + a.name + (a.style ? " (" + *a.style + ")" : std::string());
  });
  wire w(s);
  w.initialize();
  auto list = w.call("prompts/list");
  EXPECT_EQ(list.at("result").at("prompts").at(0).at("arguments"),
            j(R"([{"name":"name","description":"Who to greet","required":true},
                  {"name":"style","description":"How"}])"))
      << mcp::to_json_string(list);
  EXPECT_EQ(
      w.call("prompts/get",
             object{{"name", "greet"}, {"arguments", object{{"name", "Ada"}, {"style", "warm"}}}})
          .at("result"),
      j(R"x({"messages":[{"role":"user","content":{"type":"text","text":"Hello Ada (warm)"}}]})x"));
  // Required arguments are checked before the handler runs.
  EXPECT_EQ(w.call("prompts/get", object{{"name", "greet"}}).at("error").at("code"), -32602);
}

TEST(context, typed_templates_decode_their_variables) {
  mcp::server s;
  s.add_resource_template(
      {.uri_template = "users://{id}/profile", .name = "profile", .mime_type = "text/plain"},
      [](const user_vars& v, const mcp::resource_request& r) -> mcp::result<std::string> {
        if (v.id != "ada") return mcp::resource_not_found(r.uri);
        return "Ada Lovelace";
      });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("resources/read", object{{"uri", "users://ada/profile"}}).at("result"),
            j(R"({"contents":[{"uri":"users://ada/profile","mimeType":"text/plain",
                  "text":"Ada Lovelace"}]})"));
  auto missing = w.call("resources/read", object{{"uri", "users://bob/profile"}});
  EXPECT_EQ(missing.at("error").at("code"), -32002) << mcp::to_json_string(missing);
}

TEST(context, resources_and_prompts_see_a_context) {
  mcp::server s;
  s.add_resource({.uri = "test://ctx", .name = "ctx"}, [](mcp::request_context& ctx) {
    ctx.progress(1, 1, "read");
    ctx.log(mcp::log_level::info, "reading");
    return ctx.caller().subject + " " + ctx.protocol_version();
  });
  s.add_prompt({.name = "ask", .description = "Asks first"},
               [](mcp::request_context& ctx) -> mcp::result<std::string> {
                 auto a = ctx.elicit<yes_no>("Include the details?");
                 if (!a) return a.error();
                 return a->accepted() && a->content->yes ? "with details" : "short";
               });
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  w.call("logging/setLevel", object{{"level", "info"}}, 100);
  w.send(
      object{{"jsonrpc", "2.0"},
             {"id", 1},
             {"method", "resources/read"},
             {"params", object{{"uri", "test://ctx"}, {"_meta", object{{"progressToken", "t"}}}}}});
  std::vector<std::string> seen;
  for (;;) {
    auto m = w.next();
    ASSERT_TRUE(m);
    if (m->as_object().contains("method")) {
      seen.emplace_back(m->at("method").as_string());
      continue;
    }
    EXPECT_EQ(m->at("result").at("contents").at(0).at("text"), "local 2025-11-25");
    break;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"notifications/progress", "notifications/message"}));
  // A prompt asks the client (2025-11-25: a request to it) and waits for the answer.
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 2},
                {"method", "prompts/get"},
                {"params", object{{"name", "ask"}}}});
  auto ask = w.next();
  ASSERT_TRUE(ask);
  ASSERT_EQ(ask->at("method"), "elicitation/create");
  w.send(object{{"jsonrpc", "2.0"},
                {"id", ask->at("id")},
                {"result", j(R"({"action":"accept","content":{"yes":true}})")}});
  auto got = w.next_response();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->at("result").at("messages").at(0).at("content").at("text"), "with details");
}

TEST(context, request_async_answers_without_holding_the_handler_thread) {
  mcp::server s({.handler_executor = mcp::make_thread_pool(1)});
  s.add_tool({.name = "ask", .description = "Asks"}, [](mcp::tool_context& ctx,
                                                        mcp::reply<std::string> reply) {
    ctx.elicit_async<yes_no>("Sure?", [reply](mcp::result<mcp::elicit_result<yes_no>> a) {
      if (!a) return reply(a.error());
      reply(a->accepted() ? "accepted" : "declined");
    });
  });
  s.add_tool({.name = "quick", .description = "Quick"}, [] { return "quick"; });
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "tools/call"},
                {"params", object{{"name", "ask"}}}});
  auto ask = w.next();
  ASSERT_TRUE(ask);
  ASSERT_EQ(ask->at("method"), "elicitation/create");
  // The only pool thread is free while the client thinks.
  EXPECT_EQ(text_of(w.call("tools/call", object{{"name", "quick"}}, 2)), "quick");
  w.send(object{{"jsonrpc", "2.0"},
                {"id", ask->at("id")},
                {"result", j(R"({"action":"accept","content":{"yes":true}})")}});
  auto r = w.next_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(text_of(*r), "accepted");
  // Cancelling the call withdraws its pending request to the client.
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 3},
                {"method", "tools/call"},
                {"params", object{{"name", "ask"}}}});
  auto ask2 = w.next();
  ASSERT_TRUE(ask2);
  w.send(object{{"jsonrpc", "2.0"},
                {"method", "notifications/cancelled"},
                {"params", object{{"requestId", 3}}}});
  auto withdrawn = w.next();
  ASSERT_TRUE(withdrawn);
  EXPECT_EQ(withdrawn->at("method"), "notifications/cancelled");
  EXPECT_EQ(withdrawn->at("params").at("requestId"), ask2->at("id"));
}

TEST(context, remove_tool_waits_for_running_calls_or_cancels_them) {
  mcp::server s;
  std::promise<void> started;
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  s.add_tool({.name = "busy", .description = "Runs until released"}, [&](mcp::tool_context& ctx) {
    started.set_value();
    while (!release && !ctx.cancelled()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(20ms);
    finished = true;
    return "done";
  });
  wire w(s);
  w.initialize();
  w.send(object{{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "tools/call"},
                {"params", object{{"name", "busy"}}}});
  started.get_future().wait();
  std::thread releaser([&] {
    std::this_thread::sleep_for(30ms);
    release = true;
  });
  EXPECT_TRUE(s.remove_tool("busy"));
  EXPECT_TRUE(finished.load());  // returned only once the call was done
  releaser.join();
  EXPECT_EQ(text_of(*w.next_response()), "done");
  EXPECT_EQ(w.call("tools/call", object{{"name", "busy"}}, 2).at("error").at("code"), -32602);

  // cancel: the running call's stop token fires, and remove_tool returns once it is done.
  mcp::server s2;
  std::promise<void> started2;
  std::atomic<bool> saw_cancel{false};
  s2.add_tool({.name = "forever", .description = "Runs until cancelled"},
              [&](mcp::tool_context& ctx) {
                started2.set_value();
                while (!ctx.cancelled()) std::this_thread::sleep_for(1ms);
                saw_cancel = true;
                return "stopped";
              });
  wire w2(s2);
  w2.initialize();
  w2.send(object{{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", "tools/call"},
                 {"params", object{{"name", "forever"}}}});
  started2.get_future().wait();
  EXPECT_TRUE(s2.remove_tool("forever", mcp::server::running_calls::cancel));
  EXPECT_TRUE(saw_cancel.load());
  EXPECT_FALSE(s2.remove_tool("forever"));
}

TEST(context, a_tool_may_remove_itself) {
  mcp::server s;
  s.add_tool({.name = "once", .description = "Removes itself"},
             [&s] { return s.remove_tool("once") ? "removed" : "not removed"; });
  wire w(s);
  w.initialize();
  EXPECT_EQ(text_of(w.call("tools/call", object{{"name", "once"}})), "removed");
}

}  // namespace
