// Tests of mcp/asio.hpp: coroutine handlers (tools, resources, prompts) on the application's
// io_context or the SDK's loop, completion-token forms of requests to the client, and a client
// awaiting a typed call.
#include <mcp/asio.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace std::chrono_literals;
namespace asio = boost::asio;

struct wait_in {
  int ms = 0;
};
MCP_FIELDS(wait_in, (ms, "How long to wait"))

struct wait_out {
  int waited = 0;
};
MCP_FIELDS(wait_out, (waited))

struct yes_no {
  bool yes = false;
};
MCP_FIELDS(yes_no, (yes))

/// An io_context run by `n` threads for the test's duration.
class loop {
 public:
  explicit loop(int n) : guard_(io.get_executor()) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { io.run(); });
  }
  ~loop() {
    guard_.reset();
    io.stop();
    for (auto& t : threads_) t.join();
  }
  asio::io_context io;

 private:
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::vector<std::thread> threads_;
};

asio::awaitable<wait_out> wait_for(wait_in in) {
  asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(in.ms));
  co_await t.async_wait(asio::use_awaitable);
  co_return wait_out{in.ms};
}

TEST(asio, a_coroutine_tool_awaits_a_timer_on_the_application_loop) {
  loop l(1);
  mcp::server s({.handler_executor = mcp::make_asio_executor(l.io.get_executor())});
  std::atomic<std::thread::id> ran_on{};
  s.add_tool({.name = "wait", .description = "Waits"},
             [&ran_on](const wait_in& in) -> asio::awaitable<wait_out> {
               ran_on = std::this_thread::get_id();
               co_return co_await wait_for(in);
             });
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "wait"}, {"arguments", object{{"ms", 20}}}});
  EXPECT_EQ(r.at("result").at("structuredContent"), j(R"({"waited":20})"))
      << mcp::to_json_string(r);
  EXPECT_NE(ran_on.load(), std::thread::id{});
  EXPECT_NE(ran_on.load(), std::this_thread::get_id());
  // The inferred schemas see through the awaitable.
  auto list = w.call("tools/list");
  EXPECT_EQ(list.at("result").at("tools").at(0).at("outputSchema").at("properties"),
            j(R"({"waited":{"type":"integer"}})"));
}

TEST(asio, a_coroutine_tool_without_an_asio_executor_runs_on_the_sdk_loop) {
  mcp::server s;
  s.add_tool(
      {.name = "wait", .description = "Waits"},
      [](const wait_in& in, mcp::tool_context& ctx) -> asio::awaitable<mcp::result<wait_out>> {
        if (in.ms < 0) co_return mcp::tool_error{"negative"};
        ctx.progress(1, 2);
        auto out = co_await wait_for(in);
        if (ctx.cancelled()) co_return mcp::error{mcp::errc::cancelled, "cancelled"};
        co_return out;
      });
  s.add_tool({.name = "throws", .description = "Throws"}, []() -> asio::awaitable<std::string> {
    throw std::runtime_error("coroutine failed");
    co_return "never";
  });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/call", object{{"name", "wait"}, {"arguments", object{{"ms", 5}}}})
                .at("result")
                .at("structuredContent"),
            j(R"({"waited":5})"));
  EXPECT_EQ(w.call("tools/call", object{{"name", "wait"}, {"arguments", object{{"ms", -1}}}})
                .at("result"),
            j(R"({"content":[{"type":"text","text":"negative"}],"isError":true})"));
  EXPECT_EQ(w.call("tools/call", object{{"name", "throws"}}).at("result"),
            j(R"({"content":[{"type":"text","text":"coroutine failed"}],"isError":true})"));
}

TEST(asio, a_coroutine_elicits_without_holding_a_thread) {
  loop l(1);
  mcp::server s({.handler_executor = mcp::make_asio_executor(l.io.get_executor())});
  s.add_tool({.name = "ask", .description = "Asks"},
             [](mcp::tool_context& ctx) -> asio::awaitable<mcp::result<std::string>> {
               auto a = co_await mcp::async_elicit<yes_no>(ctx, "Sure?", asio::use_awaitable);
               if (!a) co_return a.error();
               co_return a->accepted() && a->content->yes ? "yes" : "no";
             });
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  // Two calls wait for the client at once, on a loop of one thread.
  for (int id : {1, 2}) {
    w.send(object{{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "tools/call"},
                  {"params", object{{"name", "ask"}}}});
  }
  std::vector<mcp::json::value> asks;
  for (int i = 0; i < 2; ++i) {
    auto m = w.next();
    ASSERT_TRUE(m) << "no elicitation/create";
    ASSERT_EQ(m->at("method"), "elicitation/create");
    asks.push_back(*m);
  }
  w.send(object{{"jsonrpc", "2.0"},
                {"id", asks[1].at("id")},
                {"result", j(R"({"action":"accept","content":{"yes":true}})")}});
  w.send(object{
      {"jsonrpc", "2.0"}, {"id", asks[0].at("id")}, {"result", j(R"({"action":"decline"})")}});
  std::vector<std::string> texts;
  for (int i = 0; i < 2; ++i) {
    auto r = w.next_response();
    ASSERT_TRUE(r);
    texts.emplace_back(r->at("result").at("content").at(0).at("text").as_string());
  }
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts, (std::vector<std::string>{"no", "yes"}));
}

TEST(asio, coroutine_resources_and_prompts) {
  mcp::server s;
  s.add_resource({.uri = "test://slow", .name = "slow", .mime_type = "text/plain"},
                 []() -> asio::awaitable<std::string> {
                   co_await wait_for({.ms = 1});
                   co_return "slow text";
                 });
  s.add_prompt({.name = "p", .description = "d"},
               []() -> asio::awaitable<std::string> { co_return "prompted"; });
  wire w(s);
  w.initialize();
  EXPECT_EQ(
      w.call("resources/read", object{{"uri", "test://slow"}}).at("result"),
      j(R"({"contents":[{"uri":"test://slow","mimeType":"text/plain","text":"slow text"}]})"));
  EXPECT_EQ(w.call("prompts/get", object{{"name", "p"}}).at("result"),
            j(R"({"messages":[{"role":"user","content":{"type":"text","text":"prompted"}}]})"));
}

TEST(asio, a_client_awaits_a_typed_call) {
  mcp::server s;
  s.add_tool(
      {.name = "wait", .description = "Waits"},
      [](const wait_in& in) -> asio::awaitable<wait_out> { co_return co_await wait_for(in); });
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto session = s.open_session(server_end);
  server_end->on_receive([session](std::string_view m) { session->receive(m); });
  mcp::client_session client(client_end);
  client_end->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  loop l(1);
  auto f = asio::co_spawn(
      l.io,
      [&client]() -> asio::awaitable<int> {
        auto r = co_await mcp::async_call_tool<wait_out>(client, "wait", wait_in{.ms = 3},
                                                         asio::use_awaitable);
        co_return r && r->ok() ? r->value().waited : -1;
      },
      asio::use_future);
  EXPECT_EQ(f.get(), 3);
  // Any completion token: a future.
  auto g = mcp::async_call_tool<wait_out>(client, "wait", wait_in{.ms = 4}, asio::use_future);
  auto r = g.get();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->value().waited, 4);
}

}  // namespace
