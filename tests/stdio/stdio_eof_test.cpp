// serve_stdio at the end of its input: a client that closes its end of stdin at once, and still
// reads stdout, gets an answer to every request it sent (tests/stdio/eof_server.cpp: its tools
// run on handler threads), and a call that does not end is cancelled after the drain timeout,
// named on stderr, and the process exits.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/subprocess.hpp"

namespace {

using namespace std::chrono_literals;

const std::string k_init =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::string call(const std::string& id, const std::string& tool, const std::string& args) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"tools/call","params":{"name":")" + tool +
         R"(","arguments":)" + args + "}}";
}

struct run_result {
  std::set<std::string> answered;  // the ids of the results and errors read, serialized
  std::vector<std::string> lines;  // every line read
  std::optional<int> exit_code;
  std::chrono::milliseconds after_eof{};  // from closing stdin to the process's exit
  std::string stderr_text;
};

/// Starts the server, writes `lines` in one go, closes stdin at once, reads stdout to its end.
run_result run(const std::vector<std::string>& lines, const std::string& drain_ms = "") {
  std::vector<std::string> argv{MCP_STDIO_EOF_SERVER};
  if (!drain_ms.empty()) argv.push_back(drain_ms);
  mcp::test::subprocess p(argv);
  run_result r;
  if (!p.started()) return r;
  std::string all = k_init;
  for (const auto& l : lines) all += "\n" + l;
  EXPECT_TRUE(p.write_line(all));
  p.close_stdin();
  const auto closed = std::chrono::steady_clock::now();
  while (auto line = p.read_line(20s)) {
    r.lines.push_back(*line);
    const auto v = boost::json::parse(*line);
    const auto& o = v.as_object();
    if (o.contains("result") || o.contains("error")) {
      r.answered.insert(boost::json::serialize(o.at("id")));
    }
  }
  r.exit_code = p.wait(20s);
  r.after_eof = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - closed);
  r.stderr_text = p.drain_stderr();
  return r;
}

TEST(stdio_eof, a_pool_call_read_last_is_answered_after_stdin_ends) {
  // Before serve_stdio drained, closing the session at the end of input cancelled the last call
  // in every run.
  for (int i = 0; i < 40; ++i) {
    const auto r = run({call("1", "sleep", R"({"ms":0})"), call("2", "sleep", R"({"ms":1})"),
                        call("3", "sleep", R"({"ms":5})")});
    ASSERT_EQ(r.exit_code, 0) << "run " << i << ": " << r.stderr_text;
    EXPECT_EQ(r.answered, (std::set<std::string>{"0", "1", "2", "3"})) << "run " << i;
    EXPECT_EQ(r.stderr_text.find("cancelled unanswered"), std::string::npos) << r.stderr_text;
  }
}

TEST(stdio_eof, many_pool_calls_in_flight_at_the_end_of_input_are_all_answered) {
  std::vector<std::string> lines;
  std::set<std::string> ids{"0"};
  for (int i = 1; i <= 300; ++i) {
    lines.push_back(call(std::to_string(i), "sleep", R"({"ms":)" + std::to_string(i % 7) + "}"));
    ids.insert(std::to_string(i));
  }
  for (int round = 0; round < 3; ++round) {
    const auto r = run(lines);
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    EXPECT_EQ(r.answered, ids) << "round " << round;
  }
}

TEST(stdio_eof, the_drain_ends_when_the_last_call_is_answered_not_at_its_timeout) {
  // The end of input waits for the running call, woken by its answer: well under the 4 s bound.
  for (int i = 0; i < 3; ++i) {
    const auto r =
        run({call("1", "sleep", R"({"ms":200})"), call("2", "sleep", R"({"ms":300})")}, "4000");
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    EXPECT_EQ(r.answered, (std::set<std::string>{"0", "1", "2"})) << "run " << i;
    EXPECT_GE(r.after_eof, 250ms) << "run " << i;   // the last call was waited for ...
    EXPECT_LT(r.after_eof, 2000ms) << "run " << i;  // ... and no longer: half the timeout
    EXPECT_EQ(r.stderr_text.find("cancelled unanswered"), std::string::npos) << r.stderr_text;
  }
}

TEST(stdio_eof, a_2026_07_28_call_running_at_the_end_of_input_is_answered_too) {
  // A request naming its revision is served by the session's twin (stdio serves both eras):
  // the drain waits for the twin's calls as for the session's own.
  const std::string meta = R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                           R"("io.modelcontextprotocol/clientCapabilities":{}})";
  const auto modern = [&](const std::string& id, int ms) {
    return R"({"jsonrpc":"2.0","id":)" + id +
           R"(,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":)" +
           std::to_string(ms) + "}" + meta + "}}";
  };
  for (int i = 0; i < 5; ++i) {
    const auto r = run({call("1", "sleep", R"({"ms":5})"), modern("2", 20), modern("3", 200)});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    EXPECT_EQ(r.answered, (std::set<std::string>{"0", "1", "2", "3"})) << "run " << i;
    EXPECT_EQ(r.stderr_text.find("cancelled unanswered"), std::string::npos) << r.stderr_text;
  }
}

TEST(stdio_eof, an_open_subscription_does_not_hold_the_end_of_input) {
  // A subscriptions/listen stream has no final answer until the client ends it; the end of input
  // ends it, so the drain waits for the calls only, not the 4 s timeout.
  const std::string meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                           R"("io.modelcontextprotocol/clientCapabilities":{}})";
  const std::string listen = R"({"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{)"
                             R"("notifications":{"toolsListChanged":true},)" +
                             meta + "}}";
  const auto r = run({listen, call("1", "sleep", R"({"ms":50})")}, "4000");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(r.answered.contains("1"));
  EXPECT_LT(r.after_eof, 2000ms);
  EXPECT_EQ(r.stderr_text.find("cancelled unanswered"), std::string::npos) << r.stderr_text;
  bool acknowledged = false;  // the stream was open: its acknowledgement came first
  for (const auto& l : r.lines) {
    acknowledged = acknowledged || l.find("subscriptionId") != std::string::npos;
  }
  EXPECT_TRUE(acknowledged);
}

TEST(stdio_eof, a_call_that_does_not_end_is_cancelled_after_the_drain_timeout_and_named) {
  const auto r =
      run({call("1", "sleep", R"({"ms":20})"), call(R"("never-7")", "endless", "{}")}, "300");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.answered, (std::set<std::string>{"0", "1"}));  // the endless call's answer dropped
  EXPECT_GE(r.after_eof, 300ms);                             // it was waited for ...
  EXPECT_LT(r.after_eof, 5000ms);                            // ... within the bound
  EXPECT_NE(r.stderr_text.find("1 request(s) still running after 300 ms cancelled unanswered, "
                               "ids: \"never-7\""),
            std::string::npos)
      << r.stderr_text;
}

TEST(stdio_eof, a_question_to_the_client_after_the_end_of_input_fails_at_once) {
  // The client stopped writing: roots/list can get no answer, so the handler's ask fails now and
  // its call is answered, rather than waiting for the ask's timeout and being cancelled.
  const auto r = run({call("9", "roots", "{}")});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.answered, (std::set<std::string>{"0", "9"}));
  EXPECT_LT(r.after_eof, 3000ms);
  bool told = false;
  for (const auto& l : r.lines) {
    told = told || (l.find(R"("id":9)") != std::string::npos &&
                    l.find("no roots: the session has ended") != std::string::npos);
  }
  EXPECT_TRUE(told);
  EXPECT_EQ(r.stderr_text.find("cancelled unanswered"), std::string::npos) << r.stderr_text;
}

TEST(stdio_eof, a_drain_timeout_of_zero_cancels_at_once) {
  const auto r = run({call("5", "endless", "{}")}, "0");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.answered, (std::set<std::string>{"0"}));
  EXPECT_LT(r.after_eof, 3000ms);
  EXPECT_NE(r.stderr_text.find("after 0 ms cancelled unanswered, ids: 5"), std::string::npos)
      << r.stderr_text;
}

}  // namespace
