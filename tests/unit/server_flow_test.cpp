// Wire-level tests of mcp/server.hpp, calls in flight: batches, cancellation, progress, logging,
// list_changed, duplicate ids, requests to the client, stateless sessions, the last reference.
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "support/wire.hpp"
#include "unit/server_fixture.hpp"

namespace {

using mcp::json::object;
using mcp::json::value;
using mcp::test::add_echo;
using mcp::test::j;
using mcp::test::make_server;
using mcp::test::wire;
using namespace std::chrono_literals;

TEST(server, batches_are_accepted_only_for_2025_03_26) {
  auto s = make_server();
  add_echo(s);
  wire w(s);
  w.initialize("2025-03-26");
  w.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},
             {"jsonrpc":"2.0","method":"notifications/whatever"},
             {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}])");
  // One array answers the batch (JSON-RPC 2.0 section 6).
  auto a = w.next();
  ASSERT_TRUE(a && a->is_array()) << mcp::to_json_string(a.value_or(nullptr));
  ASSERT_EQ(a->as_array().size(), 2U);
  std::set<std::int64_t> ids;
  for (const auto& m : a->as_array()) ids.insert(m.at("id").as_int64());
  EXPECT_EQ(ids, (std::set<std::int64_t>{1, 2}));
  for (const auto& m : a->as_array()) {
    if (m.at("id") == 2) {
      EXPECT_EQ(m.at("result").at("content").at(0).at("text"), "x");
    }
  }
  // Only notifications: no answer at all (not an empty array).
  w.send(R"([{"jsonrpc":"2.0","method":"notifications/whatever"}])");
  EXPECT_EQ(w.call("ping", {}, 3), j(R"({"jsonrpc":"2.0","id":3,"result":{}})"));
  wire n(s);
  n.initialize("2025-06-18");
  n.send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(n.next()->at("error").at("code"), -32600);
}

TEST(server, a_batch_array_holds_invalid_entries_and_leaves_out_cancelled_calls) {
  auto s = make_server();
  std::atomic<bool> started{false};
  s.add_tool({.name = "wait", .description = "waits until cancelled"},
             [&](mcp::tool_context& ctx, const object&) {
               started = true;
               for (int i = 0; i < 500 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(10ms);
               return mcp::tool_error_result("cancelled");
             });
  add_echo(s);
  wire w(s);
  w.initialize("2025-03-26");
  w.send(R"([{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"wait"}},
             {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}},
             {"jsonrpc":"2.0","id":8,"method":5}])");
  for (int i = 0; i < 500 && !started; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(w.next(50ms).has_value()) << "the batch is answered only when complete";
  w.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}})");
  auto a = w.next();
  ASSERT_TRUE(a && a->is_array()) << mcp::to_json_string(a.value_or(nullptr));
  ASSERT_EQ(a->as_array().size(), 2U);  // the echo result and the invalid entry's error
  std::set<std::int64_t> ids;
  for (const auto& m : a->as_array()) ids.insert(m.at("id").as_int64());
  EXPECT_EQ(ids, (std::set<std::int64_t>{7, 8}));
  for (const auto& m : a->as_array()) {
    if (m.at("id") == 8) {
      EXPECT_EQ(m.at("error").at("code"), -32600);
    }
  }
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(w.pending(), 0U);
}

TEST(server, cancelled_calls_send_no_response_and_stop_the_handler) {
  auto s = make_server();
  std::atomic<bool> stopped{false};
  std::atomic<bool> started{false};
  s.add_tool({.name = "wait", .description = "waits until cancelled"},
             [&](mcp::tool_context& ctx, const object&) {
               started = true;
               for (int i = 0; i < 500 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(10ms);
               stopped = ctx.cancelled();
               return mcp::tool_error_result("cancelled");
             });
  wire w(s);
  w.initialize();
  w.send(R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"wait"}})");
  for (int i = 0; i < 500 && !started; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(w.session().active_calls(), 1U);
  w.send(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}})");
  for (int i = 0; i < 500 && !stopped; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(w.call("ping", {}, 2), j(R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(w.pending(), 0U) << "a cancelled call must not be answered: "
                             << mcp::to_json_string(w.next(10ms).value_or(nullptr));
  EXPECT_EQ(w.session().active_calls(), 0U);
}

TEST(server, progress_echoes_the_token_and_only_increases) {
  auto s = make_server();
  s.add_tool({.name = "steps", .description = "reports progress"},
             [](mcp::tool_context& ctx, const object&) {
               ctx.progress(1, 3, "one");
               ctx.progress(1, 3, "repeated: dropped");
               ctx.progress(0.5, 3, "backwards: dropped");
               ctx.progress(2, 3);
               ctx.progress(3);
               return mcp::call_tool_result{};
             });
  wire w(s);
  w.initialize();
  w.send(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":"tok-1"}}})");
  EXPECT_EQ(
      *w.next(),
      j(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":1,"total":3,"message":"one"}})"));
  EXPECT_EQ(
      *w.next(),
      j(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":2,"total":3}})"));
  EXPECT_EQ(
      *w.next(),
      j(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-1","progress":3}})"));
  EXPECT_EQ(w.next()->at("id"), 1);
  // Without a token nothing is sent.
  w.send(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":7}}})");
  EXPECT_EQ(w.next()->at("params").at("progressToken"), 7);
  w.next_response();
  w.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"steps"}})");
  EXPECT_EQ(w.next()->at("id"), 3);
}

TEST(server, logging_respects_the_level_the_client_set) {
  auto s = make_server();
  s.add_tool({.name = "logs", .description = "logs at two levels"},
             [](mcp::tool_context& ctx, const object&) {
               ctx.log(mcp::log_level::debug, value("fine detail"));
               ctx.log(mcp::log_level::warning, value("careful"), "demo");
               return mcp::call_tool_result{};
             });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("logging/setLevel", object{{"level", "loud"}}).at("error").at("code"), -32602);
  EXPECT_EQ(w.call("logging/setLevel", object{{"level", "warning"}}).at("result"), object{});
  w.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs"}})");
  EXPECT_EQ(
      *w.next(),
      j(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"demo","data":"careful"}})"));
  EXPECT_EQ(w.next()->at("id"), 2);
  EXPECT_EQ(w.call("logging/setLevel", object{{"level", "debug"}}, 3).at("result"), object{});
  w.send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"logs"}})");
  EXPECT_EQ(w.next()->at("params").at("level"), "debug");
  EXPECT_EQ(w.next()->at("params").at("level"), "warning");
}

TEST(server, tool_changes_send_one_debounced_list_changed) {
  auto s = make_server(100, 500ms);
  wire w(s);
  w.initialize();
  wire before_init(s);  // not initialized: gets nothing
  add_echo(s, "a");
  add_echo(s, "b");
  s.set_tool_enabled("a", false);
  auto n = w.next(2s);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, j(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"));
  EXPECT_FALSE(w.next(100ms)) << "changes within the debounce window give one notification";
  EXPECT_EQ(before_init.pending(), 0U);
  // Disabled tools are neither listed nor callable.
  auto list = w.call("tools/list");
  ASSERT_EQ(list.at("result").at("tools").as_array().size(), 1U);
  EXPECT_EQ(w.call("tools/call", object{{"name", "a"}}, 2).at("error").at("code"), -32602);
  EXPECT_TRUE(s.set_tool_enabled("a", true));
  EXPECT_FALSE(s.set_tool_enabled("zzz", true));
  EXPECT_TRUE(w.next(2s));
}

TEST(server, duplicate_in_flight_id_is_refused) {
  auto s = make_server();
  std::atomic<bool> release{false};
  s.add_tool({.name = "block", .description = "blocks"}, [&](mcp::tool_context&, const object&) {
    for (int i = 0; i < 500 && !release; ++i) std::this_thread::sleep_for(5ms);
    return mcp::call_tool_result{};
  });
  wire w(s);
  w.initialize();
  w.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}})");
  std::this_thread::sleep_for(20ms);
  w.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}})");
  auto dup = w.next();
  ASSERT_TRUE(dup);
  ASSERT_TRUE(dup->as_object().contains("error")) << mcp::to_json_string(*dup);
  EXPECT_EQ(dup->at("error").at("code"), -32600);
  release = true;
  EXPECT_EQ(w.next()->at("result").at("content"), mcp::json::array{});
}

TEST(server, calls_in_flight_side_by_side_are_each_tracked) {
  // The first call in flight and those beside it are recorded apart (peer.hpp): duplicates of
  // each are refused, a cancelled one frees its id, and every other one is answered.
  auto s = make_server();
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  s.add_tool({.name = "block", .description = "blocks"},
             [&](mcp::tool_context& ctx, const object&) {
               ++started;
               for (int i = 0; i < 1000 && !release && !ctx.cancelled(); ++i) {
                 std::this_thread::sleep_for(2ms);
               }
               return mcp::call_tool_result{};
             });
  wire w(s);
  w.initialize();
  const auto call = [&](int id) {
    w.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"tools/call","params":{"name":"block"}})");
  };
  const auto refused = [&](int id) {
    call(id);
    auto dup = w.next();
    ASSERT_TRUE(dup);
    EXPECT_EQ(dup->at("id"), id);
    EXPECT_EQ(dup->at("error").at("code"), -32600) << mcp::to_json_string(*dup);
  };
  for (int id : {1, 2, 3}) call(id);
  for (int i = 0; i < 1000 && started < 3; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(w.session().active_calls(), 3U);
  refused(1);
  refused(3);
  w.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  for (int i = 0; i < 1000 && w.session().active_calls() != 2; ++i) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(w.session().active_calls(), 2U);
  call(1);  // its id is free again
  for (int i = 0; i < 1000 && started < 4; ++i) std::this_thread::sleep_for(1ms);
  refused(1);
  refused(2);
  EXPECT_EQ(w.session().active_calls(), 3U);
  release = true;
  std::set<std::int64_t> answered;
  for (int k = 0; k < 3; ++k) {
    auto r = w.next();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->at("result").at("content"), mcp::json::array{});
    answered.insert(r->at("id").as_int64());
  }
  EXPECT_EQ(answered, (std::set<std::int64_t>{1, 2, 3}));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(w.pending(), 0U);
  EXPECT_EQ(w.session().active_calls(), 0U);
}

TEST(server, requests_to_the_client_need_its_capability) {
  auto s = make_server();
  s.add_tool({.name = "ask", .description = "samples"}, [](mcp::tool_context& ctx, const object&) {
    auto r = ctx.create_message(object{{"messages", mcp::json::array{}}, {"maxTokens", 5}});
    if (!r) return mcp::tool_error_result(r.error().message);
    mcp::call_tool_result out;
    out.content.push_back(mcp::text_content(r->at("content").at("text").as_string()));
    return out;
  });
  {
    wire w(s);
    w.initialize();
    auto r = w.call("tools/call", object{{"name", "ask"}});
    EXPECT_EQ(r.at("result").at("isError"), true);
    EXPECT_NE(
        std::string(r.at("result").at("content").at(0).at("text").as_string()).find("sampling"),
        std::string::npos);
  }
  wire w(s);
  w.initialize("2025-11-25", object{{"sampling", object{}}});
  w.send(R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"ask"}})");
  auto req = w.next();
  ASSERT_TRUE(req);
  EXPECT_EQ(req->at("method"), "sampling/createMessage");
  EXPECT_TRUE(req->at("id").is_int64());
  mcp::json::object reply{
      {"jsonrpc", "2.0"},
      {"id", req->at("id")},
      {"result",
       j(R"({"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"})")}};
  w.send(reply);
  auto r = w.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("result").at("content").at(0).at("text"), "hello");
}

TEST(server, stateless_sessions_start_initialized) {
  auto s = make_server();
  add_echo(s);
  wire w(s, {.assume_initialized = "2025-06-18"});
  auto r = w.call("tools/call", object{{"name", "echo"}, {"arguments", object{{"text", "hi"}}}});
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "hi");
  EXPECT_EQ(w.session().protocol_version(), "2025-06-18");
}

}  // namespace

namespace {

TEST(server, may_be_released_last_by_its_own_handler_thread) {
  // The handler thread holds the session (and through it the server's core) while the test
  // drops both: the pool is then destroyed on one of its own threads. The handler is running
  // before they go (a call whose session closed first never runs), and what it touches is shared:
  // if the test gives up, it still runs later.
  const auto release = std::make_shared<std::atomic<bool>>(false);
  const auto started = std::make_shared<std::atomic<bool>>(false);
  const auto finished = std::make_shared<std::atomic<bool>>(false);
  const auto within_10s = [](const std::atomic<bool>& flag) {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!flag && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(2ms);
    }
    return flag.load();
  };
  {
    auto s = std::make_unique<mcp::server>();
    s->add_tool({.name = "late", .description = "d"},
                [release, started, finished](mcp::tool_context& ctx, const mcp::json::object&) {
                  *started = true;
                  for (int i = 0; i < 5000 && !*release; ++i) std::this_thread::sleep_for(2ms);
                  ctx.progress(1);  // holds the session while the test has let go of it
                  *finished = true;
                  return mcp::call_tool_result{};
                });
    auto w = std::make_unique<mcp::test::wire>(*s);
    w->initialize();
    w->send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"late"}})");
    EXPECT_TRUE(within_10s(*started));
    w.reset();
    s.reset();
    *release = true;
  }
  EXPECT_TRUE(within_10s(*finished));
}

}  // namespace
