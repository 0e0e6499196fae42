// The engine's span of a received request ends where the answer finds it: in the request's
// record while its answer is written right after `untrack`, on the dispatching thread when it
// is answered before it is tracked. Text and number ids, and ids reused once answered, each
// count once in the metrics, with their outcome. A tool's or prompt's name is found wherever it
// stands among the params, and the set found last is never taken for another method's or tool's,
// nor kept for a tool removed or replaced. The engine's clock is the steady clock.
#include <mcp/observe/metrics.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "detail/read_clock.hpp"
#include "observe/series_count.hpp"

namespace {

using namespace std::chrono_literals;

/// The messages the server sent, in order.
struct collect final : mcp::connection {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> sent;
  void send(std::string m, const mcp::send_context&) override {
    std::lock_guard lock(mu);
    sent.push_back(std::move(m));
    cv.notify_all();
  }
  void close() override {}
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] { return sent.size() >= n; });
  }
};

/// The count of the server's tools/call series of `tool` with status code `code` ("": none).
std::uint64_t calls(const mcp::observe::metrics& m, std::string_view tool, std::string_view code) {
  return mcp_test::count_where(m, {{"gen_ai.tool.name", tool}, {"rpc.response.status_code", code}});
}

TEST(engine_answers, text_and_number_ids_reused_once_answered_each_count_once) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  auto conn = std::make_shared<collect>();
  auto session = s.open_session(conn, {});
  session->receive(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  session->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  // Answered after `untrack` (the span in the record), and before `track` (an unknown tool:
  // the span on the dispatching thread), under ids the previous answers freed.
  const std::vector<std::pair<std::string, std::string>> calls_sent = {
      {R"("a")", "add"},  {"2", "add"},       {R"("a")", "add"}, {"2", "add"},
      {R"("a")", "nope"}, {R"("bb")", "add"}, {"2", "nope"},     {"2", "add"},
  };
  for (std::size_t i = 0; i < calls_sent.size(); ++i) {  // each once the one before is answered
    session->receive(R"({"jsonrpc":"2.0","id":)" + calls_sent[i].first +
                     R"(,"method":"tools/call","params":{"name":")" + calls_sent[i].second +
                     R"("}})");
    ASSERT_TRUE(conn->wait_for(2 + i));
  }
  {
    std::lock_guard lock(conn->mu);
    for (std::size_t i = 0; i < calls_sent.size(); ++i) {
      const auto& answer = conn->sent[1 + i];
      SCOPED_TRACE(answer);
      EXPECT_NE(answer.find(R"("id":)" + calls_sent[i].first), std::string::npos);
      EXPECT_EQ(answer.find("\"error\"") != std::string::npos, calls_sent[i].second == "nope");
    }
  }
  session->close();
  EXPECT_EQ(calls(*metrics, "add", ""), 6U);
  EXPECT_EQ(calls(*metrics, "nope", "-32602"), 2U);
  EXPECT_EQ(calls(*metrics, "add", "-32602"), 0U);
}

/// The count of the server's `method` series whose attribute `key` is `name`.
std::uint64_t operations(const mcp::observe::metrics& m, std::string_view method,
                         std::string_view key, std::string_view name) {
  return mcp_test::count_where(m, {{"mcp.method.name", method}, {key, name}});
}

TEST(engine_answers, names_anywhere_in_the_params_and_other_methods_keep_their_own_series) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  s.add_tool({.name = "sub"}, [](mcp::tool_context&) { return std::string("1"); });
  auto conn = std::make_shared<collect>();
  auto session = s.open_session(conn, {});
  session->receive(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  session->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  // Each repeats or follows the set of the one before: the name first, last, a prompt of a
  // tool's name, a method without a target, a name that is not a string.
  const std::vector<std::string> params = {
      R"("tools/call","params":{"name":"add"})",
      R"("tools/call","params":{"arguments":{"x":1},"name":"add"})",
      R"("tools/call","params":{"arguments":{},"name":"sub"})",
      R"("tools/call","params":{"name":"sub","arguments":{}})",
      R"("tools/call","params":{"name":"add"})",
      R"("prompts/get","params":{"name":"add"})",
      R"("tools/list","params":{"name":"add"})",
      R"("tools/call","params":{"name":"add"})",
      R"("tools/call","params":{"arguments":{},"name":7})",
      R"("tools/call","params":{"name":"add"})",
  };
  for (std::size_t i = 0; i < params.size(); ++i) {  // each once the one before is answered
    session->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(2 + i) + R"(,"method":)" +
                     params[i] + "}");
    ASSERT_TRUE(conn->wait_for(2 + i));
  }
  session->close();
  EXPECT_EQ(operations(*metrics, "tools/call", "gen_ai.tool.name", "add"), 5U);
  EXPECT_EQ(operations(*metrics, "tools/call", "gen_ai.tool.name", "sub"), 2U);
  EXPECT_EQ(operations(*metrics, "prompts/get", "gen_ai.prompt.name", "add"), 1U);
  EXPECT_EQ(operations(*metrics, "prompts/get", "gen_ai.tool.name", "add"), 0U);
  EXPECT_EQ(operations(*metrics, "tools/list", "mcp.method.name", "tools/list"), 1U);
  EXPECT_EQ(operations(*metrics, "tools/list", "gen_ai.tool.name", "add"), 0U);
  // The call without a name string: a series of its own, without a tool name.
  EXPECT_EQ(mcp_test::count_where(*metrics, {{"mcp.method.name", "tools/call"}}), 8U);
}

TEST(engine_answers, a_tool_removed_added_again_and_replaced_keeps_exact_counts) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  auto conn = std::make_shared<collect>();
  auto session = s.open_session(conn, {});
  session->receive(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  session->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  std::size_t answers = 1;
  std::int64_t id = 2;
  // `n` calls of "add" in a row (the set found last each time after the first), each once the
  // one before is answered; the answers' texts.
  const auto call_add = [&](int n) {
    std::vector<std::string> texts;
    for (int i = 0; i < n; ++i) {
      session->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(id++) +
                       R"(,"method":"tools/call","params":{"name":"add"}})");
      if (!conn->wait_for(++answers)) return texts;
      std::lock_guard lock(conn->mu);
      texts.push_back(conn->sent.back());
    }
    return texts;
  };
  const auto answered_with = [](const std::vector<std::string>& texts, std::string_view what) {
    return std::all_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(what) != std::string::npos; });
  };
  auto texts = call_add(3);
  ASSERT_EQ(texts.size(), 3U);
  EXPECT_TRUE(answered_with(texts, R"("text":"3")"));
  ASSERT_TRUE(s.remove_tool("add"));
  texts = call_add(2);  // refused: -32602, a series of their own
  ASSERT_EQ(texts.size(), 2U);
  EXPECT_TRUE(answered_with(texts, "-32602"));
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("4"); });
  texts = call_add(4);
  ASSERT_EQ(texts.size(), 4U);
  EXPECT_TRUE(answered_with(texts, R"("text":"4")"));
  ASSERT_TRUE(s.remove_tool("add"));  // replaced by a tool of the same name that fails
  s.add_tool({.name = "add"}, [](mcp::tool_context&) -> mcp::call_tool_result {
    return mcp::tool_error_result("no");
  });
  texts = call_add(5);
  ASSERT_EQ(texts.size(), 5U);
  EXPECT_TRUE(answered_with(texts, R"("isError":true)"));
  session->close();
  EXPECT_EQ(calls(*metrics, "add", ""), 12U);  // successes and tool errors (no status code)
  EXPECT_EQ(calls(*metrics, "add", "-32602"), 2U);
  // The tool errors are their own series (error.type tool_error), apart from the successes.
  EXPECT_EQ(mcp_test::count_where(*metrics, {{"error.type", "tool_error"}}), 5U);
}

TEST(engine_answers, the_engine_clock_reads_the_steady_clock) {
  for (int i = 0; i < 1000; ++i) {
    const auto before = std::chrono::steady_clock::now();
    const auto read = mcp::detail::monotonic_now();
    const auto after = std::chrono::steady_clock::now();
    ASSERT_LE(before, read);
    ASSERT_LE(read, after);
  }
}

}  // namespace
